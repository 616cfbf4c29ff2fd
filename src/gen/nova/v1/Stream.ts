// Original file: proto/nova/v1/metadata.proto

import type { Class as _nova_v1_Class, Class__Output as _nova_v1_Class__Output } from '../../nova/v1/Class';
import type { ProducerPolicy as _nova_v1_ProducerPolicy, ProducerPolicy__Output as _nova_v1_ProducerPolicy__Output } from '../../nova/v1/ProducerPolicy';
import type { TimestampingMode as _nova_v1_TimestampingMode, TimestampingMode__Output as _nova_v1_TimestampingMode__Output } from '../../nova/v1/TimestampingMode';
import type { Long } from '@grpc/proto-loader';

export interface Stream {
  'stream_id'?: (string);
  'bucket'?: (string);
  'key'?: (string);
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
  'creation_token'?: (string);
  'created_at_unix_ms'?: (number | string | Long);
  'deleted_at_unix_ms'?: (number | string | Long);
  'delete_on_empty_min_age_ms'?: (number | string | Long);
  'content_type'?: (string);
  'expire_idle_ms'?: (number | string | Long);
  'expires_at_unix_ms'?: (number | string | Long);
  'fork_origin'?: (string);
  'forked'?: (boolean);
  'retired_at_unix_ms'?: (number | string | Long);
  'creation_digest'?: (string);
}

export interface Stream__Output {
  'stream_id': (string);
  'bucket': (string);
  'key': (string);
  'class': (_nova_v1_Class__Output);
  'producer_policy': (_nova_v1_ProducerPolicy__Output);
  'retention_max_age_ms': (string);
  'retention_max_bytes': (string);
  'batch_max_bytes': (string);
  'batch_max_records': (number);
  'batch_max_delay_ms': (number);
  'throughput_max_bytes_per_second': (string);
  'timestamping_mode': (_nova_v1_TimestampingMode__Output);
  'timestamping_uncapped': (boolean);
  'creation_token': (string);
  'created_at_unix_ms': (string);
  'deleted_at_unix_ms': (string);
  'delete_on_empty_min_age_ms': (string);
  'content_type': (string);
  'expire_idle_ms': (string);
  'expires_at_unix_ms': (string);
  'fork_origin': (string);
  'forked': (boolean);
  'retired_at_unix_ms': (string);
  'creation_digest': (string);
}
