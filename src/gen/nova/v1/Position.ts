// Original file: proto/nova/v1/dataplane.proto

import type { Long } from '@grpc/proto-loader';

export interface Position {
  'seq_num'?: (number | string | Long);
  'timestamp_ms'?: (number | string | Long);
}

export interface Position__Output {
  'seq_num': (string);
  'timestamp_ms': (string);
}
