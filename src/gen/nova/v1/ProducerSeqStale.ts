// Original file: proto/nova/v1/dataplane.proto

import type { Long } from '@grpc/proto-loader';

export interface ProducerSeqStale {
  'last_seq'?: (number | string | Long);
}

export interface ProducerSeqStale__Output {
  'last_seq': (string);
}
