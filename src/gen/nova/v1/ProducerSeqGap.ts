// Original file: proto/nova/v1/dataplane.proto

import type { Long } from '@grpc/proto-loader';

export interface ProducerSeqGap {
  'expected_seq'?: (number | string | Long);
  'received_seq'?: (number | string | Long);
  'unknown_producer'?: (boolean);
}

export interface ProducerSeqGap__Output {
  'expected_seq': (string);
  'received_seq': (string);
  'unknown_producer': (boolean);
}
