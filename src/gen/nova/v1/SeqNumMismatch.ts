// Original file: proto/nova/v1/dataplane.proto

import type { Long } from '@grpc/proto-loader';

export interface SeqNumMismatch {
  'expected_seq_num'?: (number | string | Long);
}

export interface SeqNumMismatch__Output {
  'expected_seq_num': (string);
}
