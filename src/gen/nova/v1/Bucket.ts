// Original file: proto/nova/v1/metadata.proto

import type { Class as _nova_v1_Class, Class__Output as _nova_v1_Class__Output } from '../../nova/v1/Class';
import type { ProducerPolicy as _nova_v1_ProducerPolicy, ProducerPolicy__Output as _nova_v1_ProducerPolicy__Output } from '../../nova/v1/ProducerPolicy';
import type { TimestampingMode as _nova_v1_TimestampingMode, TimestampingMode__Output as _nova_v1_TimestampingMode__Output } from '../../nova/v1/TimestampingMode';
import type { Long } from '@grpc/proto-loader';

export interface Bucket {
  'name'?: (string);
  'location'?: (string);
  'create_stream_on_append'?: (boolean);
  'create_stream_on_read'?: (boolean);
  'default_class'?: (_nova_v1_Class);
  'default_producer_policy'?: (_nova_v1_ProducerPolicy);
  'default_retention_max_age_ms'?: (number | string | Long);
  'default_retention_max_bytes'?: (number | string | Long);
  'default_batch_max_bytes'?: (number | string | Long);
  'default_batch_max_records'?: (number);
  'default_batch_max_delay_ms'?: (number);
  'default_throughput_max_bytes_per_second'?: (number | string | Long);
  'default_timestamping_mode'?: (_nova_v1_TimestampingMode);
  'default_timestamping_uncapped'?: (boolean);
  'creation_token'?: (string);
  'created_at_unix_ms'?: (number | string | Long);
  'deleted_at_unix_ms'?: (number | string | Long);
  'default_delete_on_empty_min_age_ms'?: (number | string | Long);
  'creation_digest'?: (string);
  'streams_swept'?: (boolean);
}

export interface Bucket__Output {
  'name': (string);
  'location': (string);
  'create_stream_on_append': (boolean);
  'create_stream_on_read': (boolean);
  'default_class': (_nova_v1_Class__Output);
  'default_producer_policy': (_nova_v1_ProducerPolicy__Output);
  'default_retention_max_age_ms': (string);
  'default_retention_max_bytes': (string);
  'default_batch_max_bytes': (string);
  'default_batch_max_records': (number);
  'default_batch_max_delay_ms': (number);
  'default_throughput_max_bytes_per_second': (string);
  'default_timestamping_mode': (_nova_v1_TimestampingMode__Output);
  'default_timestamping_uncapped': (boolean);
  'creation_token': (string);
  'created_at_unix_ms': (string);
  'deleted_at_unix_ms': (string);
  'default_delete_on_empty_min_age_ms': (string);
  'creation_digest': (string);
  'streams_swept': (boolean);
}
