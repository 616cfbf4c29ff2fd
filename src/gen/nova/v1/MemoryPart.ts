// Original file: proto/nova/v1/adminplane.proto

import type { Long } from '@grpc/proto-loader';

export interface MemoryPart {
  'name'?: (string);
  'held_bytes'?: (number | string | Long);
  'bound_bytes'?: (number | string | Long);
}

export interface MemoryPart__Output {
  'name': (string);
  'held_bytes': (string);
  'bound_bytes': (string);
}
