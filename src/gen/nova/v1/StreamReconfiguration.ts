// Original file: proto/nova/v1/metadata.proto

import type { Class as _nova_v1_Class, Class__Output as _nova_v1_Class__Output } from '../../nova/v1/Class';
import type { ProducerPolicy as _nova_v1_ProducerPolicy, ProducerPolicy__Output as _nova_v1_ProducerPolicy__Output } from '../../nova/v1/ProducerPolicy';
import type { TimestampingMode as _nova_v1_TimestampingMode, TimestampingMode__Output as _nova_v1_TimestampingMode__Output } from '../../nova/v1/TimestampingMode';
import type { Long } from '@grpc/proto-loader';

export interface StreamReconfiguration {
  'class'?: (_nova_v1_Class);
  'producer_policy'?: (_nova_v1_ProducerPolicy);
  'retention_max_age_ms'?: (number | string | Long);
  'retention_max_bytes'?: (number | string | Long);
  'batch_max_bytes'?: (number | string | Long);
  'batch_max_records'?: (number);
  'batch_max_delay_ms'?: (number);
  'throughput_max_bytes_per_second'?: (number | string | Long);
  'timestamping_mode'?: (_nova_v1_TimestampingMode);
  'timestamping_uncapped'?: (boolean);
  'delete_on_empty_min_age_ms'?: (number | string | Long);
  'forked'?: (boolean);
  'retired_at_unix_ms'?: (number | string | Long);
  '_class'?: "class";
  '_producer_policy'?: "producer_policy";
  '_retention_max_age_ms'?: "retention_max_age_ms";
  '_retention_max_bytes'?: "retention_max_bytes";
  '_batch_max_bytes'?: "batch_max_bytes";
  '_batch_max_records'?: "batch_max_records";
  '_batch_max_delay_ms'?: "batch_max_delay_ms";
  '_throughput_max_bytes_per_second'?: "throughput_max_bytes_per_second";
  '_timestamping_mode'?: "timestamping_mode";
  '_timestamping_uncapped'?: "timestamping_uncapped";
  '_delete_on_empty_min_age_ms'?: "delete_on_empty_min_age_ms";
  '_forked'?: "forked";
  '_retired_at_unix_ms'?: "retired_at_unix_ms";
}

export interface StreamReconfiguration__Output {
  'class'?: (_nova_v1_Class__Output);
  'producer_policy'?: (_nova_v1_ProducerPolicy__Output);
  'retention_max_age_ms'?: (string);
  'retention_max_bytes'?: (string);
  'batch_max_bytes'?: (string);
  'batch_max_records'?: (number);
  'batch_max_delay_ms'?: (number);
  'throughput_max_bytes_per_second'?: (string);
  'timestamping_mode'?: (_nova_v1_TimestampingMode__Output);
  'timestamping_uncapped'?: (boolean);
  'delete_on_empty_min_age_ms'?: (string);
  'forked'?: (boolean);
  'retired_at_unix_ms'?: (string);
  '_class'?: "class";
  '_producer_policy'?: "producer_policy";
  '_retention_max_age_ms'?: "retention_max_age_ms";
  '_retention_max_bytes'?: "retention_max_bytes";
  '_batch_max_bytes'?: "batch_max_bytes";
  '_batch_max_records'?: "batch_max_records";
  '_batch_max_delay_ms'?: "batch_max_delay_ms";
  '_throughput_max_bytes_per_second'?: "throughput_max_bytes_per_second";
  '_timestamping_mode'?: "timestamping_mode";
  '_timestamping_uncapped'?: "timestamping_uncapped";
  '_delete_on_empty_min_age_ms'?: "delete_on_empty_min_age_ms";
  '_forked'?: "forked";
  '_retired_at_unix_ms'?: "retired_at_unix_ms";
}
