// Original file: proto/nova/v1/dataplane.proto

import type { Long } from '@grpc/proto-loader';

export interface ThroughputExceeded {
  'limit_bytes_per_second'?: (number | string | Long);
  'retry_after_ms'?: (number | string | Long);
}

export interface ThroughputExceeded__Output {
  'limit_bytes_per_second': (string);
  'retry_after_ms': (string);
}
