// Original file: proto/nova/v1/dataplane.proto

import type { Long } from '@grpc/proto-loader';

export interface BatchTooLarge {
  'content_bytes'?: (number | string | Long);
  'limit'?: (number | string | Long);
}

export interface BatchTooLarge__Output {
  'content_bytes': (string);
  'limit': (string);
}
