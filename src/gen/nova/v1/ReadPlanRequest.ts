// Original file: proto/nova/v1/dataplane.proto

import type { Long } from '@grpc/proto-loader';

export interface ReadPlanRequest {
  'bucket'?: (string);
  'key'?: (string);
  'seq_num'?: (number | string | Long);
  'timestamp_ms'?: (number | string | Long);
  'limit'?: (number);
  'clamp'?: (boolean);
  'start'?: "seq_num"|"timestamp_ms";
}

export interface ReadPlanRequest__Output {
  'bucket': (string);
  'key': (string);
  'seq_num'?: (string);
  'timestamp_ms'?: (string);
  'limit': (number);
  'clamp': (boolean);
  'start'?: "seq_num"|"timestamp_ms";
}
