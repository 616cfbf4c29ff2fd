// Original file: proto/s2/v1/s2.proto

import type { Long } from '@grpc/proto-loader';

export interface StreamPosition {
  'seq_num'?: (number | string | Long);
  'timestamp'?: (number | string | Long);
}

export interface StreamPosition__Output {
  'seq_num': (string);
  'timestamp': (string);
}
