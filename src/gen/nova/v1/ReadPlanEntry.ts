// Original file: proto/nova/v1/dataplane.proto

import type { ObjectLocation as _nova_v1_ObjectLocation, ObjectLocation__Output as _nova_v1_ObjectLocation__Output } from '../../nova/v1/ObjectLocation';
import type { Long } from '@grpc/proto-loader';

export interface ReadPlanEntry {
  'url'?: (string);
  'object'?: (_nova_v1_ObjectLocation | null);
  'footer_off'?: (number | string | Long);
  'footer_len'?: (number);
  'payload_bytes'?: (number | string | Long);
  'first_seq_num'?: (number | string | Long);
  'min_timestamp_ms'?: (number | string | Long);
  'max_timestamp_ms'?: (number | string | Long);
  'location'?: "url"|"object";
}

export interface ReadPlanEntry__Output {
  'url'?: (string);
  'object'?: (_nova_v1_ObjectLocation__Output | null);
  'footer_off': (string);
  'footer_len': (number);
  'payload_bytes': (string);
  'first_seq_num': (string);
  'min_timestamp_ms': (string);
  'max_timestamp_ms': (string);
  'location'?: "url"|"object";
}
