// Original file: proto/nova/v1/dataplane.proto

import type { Long } from '@grpc/proto-loader';

export interface LogDamaged {
  'star_id'?: (string);
  'object_key'?: (string);
  'stream_id'?: (string);
  'missing_seq_num'?: (number | string | Long);
}

export interface LogDamaged__Output {
  'star_id': (string);
  'object_key': (string);
  'stream_id': (string);
  'missing_seq_num': (string);
}
