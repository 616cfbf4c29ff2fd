// Original file: proto/nova/v1/dataplane.proto

import type { Long } from '@grpc/proto-loader';

export interface TrimRequest {
  'bucket'?: (string);
  'key'?: (string);
  'seq_num'?: (number | string | Long);
  'timestamp_ms'?: (number | string | Long);
  'point'?: "seq_num"|"timestamp_ms";
}

export interface TrimRequest__Output {
  'bucket': (string);
  'key': (string);
  'seq_num'?: (string);
  'timestamp_ms'?: (string);
  'point'?: "seq_num"|"timestamp_ms";
}
