// Original file: proto/nova/v1/adminplane.proto

import type { MemoryPart as _nova_v1_MemoryPart, MemoryPart__Output as _nova_v1_MemoryPart__Output } from '../../nova/v1/MemoryPart';
import type { Long } from '@grpc/proto-loader';

export interface StarStatsResponse {
  'unsettled_records'?: (number | string | Long);
  'unsettled_bytes'?: (number | string | Long);
  'settle_lag_ms'?: (number | string | Long);
  'log_objects_outstanding'?: (number | string | Long);
  'object_store_puts'?: (number | string | Long);
  'object_store_gets'?: (number | string | Long);
  'object_store_deletes'?: (number | string | Long);
  'log_objects_written'?: (number | string | Long);
  'chunks_settled'?: (number | string | Long);
  'log_objects_torn'?: (number | string | Long);
  'log_damage_errors'?: (number | string | Long);
  'memory'?: (_nova_v1_MemoryPart)[];
  'lease_held'?: (boolean);
  'lease_epoch'?: (number | string | Long);
  'lease_renewals'?: (number | string | Long);
  'lease_takeovers'?: (number | string | Long);
  'leases_lost'?: (number | string | Long);
  'log_fenced_refusals'?: (number | string | Long);
  'open_streams'?: (number | string | Long);
  'dormant_streams'?: (number | string | Long);
  'streams_closed_idle'?: (number | string | Long);
  'append_sessions'?: (number | string | Long);
}

export interface StarStatsResponse__Output {
  'unsettled_records': (string);
  'unsettled_bytes': (string);
  'settle_lag_ms': (string);
  'log_objects_outstanding': (string);
  'object_store_puts': (string);
  'object_store_gets': (string);
  'object_store_deletes': (string);
  'log_objects_written': (string);
  'chunks_settled': (string);
  'log_objects_torn': (string);
  'log_damage_errors': (string);
  'memory': (_nova_v1_MemoryPart__Output)[];
  'lease_held': (boolean);
  'lease_epoch': (string);
  'lease_renewals': (string);
  'lease_takeovers': (string);
  'leases_lost': (string);
  'log_fenced_refusals': (string);
  'open_streams': (string);
  'dormant_streams': (string);
  'streams_closed_idle': (string);
  'append_sessions': (string);
}
