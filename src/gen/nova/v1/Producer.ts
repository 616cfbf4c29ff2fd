// Original file: proto/nova/v1/dataplane.proto

import type { Long } from '@grpc/proto-loader';

export interface Producer {
  'id'?: (string);
  'epoch'?: (number | string | Long);
  'seq'?: (number | string | Long);
}

export interface Producer__Output {
  'id': (string);
  'epoch': (string);
  'seq': (string);
}
