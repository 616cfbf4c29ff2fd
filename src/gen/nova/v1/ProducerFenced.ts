// Original file: proto/nova/v1/dataplane.proto

import type { Long } from '@grpc/proto-loader';

export interface ProducerFenced {
  'current_epoch'?: (number | string | Long);
}

export interface ProducerFenced__Output {
  'current_epoch': (string);
}
