// Original file: proto/nova/v1/dataplane.proto

import type { Long } from '@grpc/proto-loader';

export interface SubscribeRequest {
  'bucket'?: (string);
  'key'?: (string);
  'seq_num'?: (number | string | Long);
  'timestamp_ms'?: (number | string | Long);
  'tail_offset'?: (number | string | Long);
  'clamp'?: (boolean);
  'start'?: "seq_num"|"timestamp_ms"|"tail_offset";
}

export interface SubscribeRequest__Output {
  'bucket': (string);
  'key': (string);
  'seq_num'?: (string);
  'timestamp_ms'?: (string);
  'tail_offset'?: (string);
  'clamp': (boolean);
  'start'?: "seq_num"|"timestamp_ms"|"tail_offset";
}
