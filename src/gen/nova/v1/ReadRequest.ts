// Original file: proto/nova/v1/dataplane.proto

import type { Long } from '@grpc/proto-loader';

export interface ReadRequest {
  'bucket'?: (string);
  'key'?: (string);
  'seq_num'?: (number | string | Long);
  'timestamp_ms'?: (number | string | Long);
  'tail_offset'?: (number | string | Long);
  'count'?: (number);
  'bytes'?: (number | string | Long);
  'until_ms'?: (number | string | Long);
  'clamp'?: (boolean);
  'start'?: "seq_num"|"timestamp_ms"|"tail_offset";
  '_until_ms'?: "until_ms";
}

export interface ReadRequest__Output {
  'bucket': (string);
  'key': (string);
  'seq_num'?: (string);
  'timestamp_ms'?: (string);
  'tail_offset'?: (string);
  'count': (number);
  'bytes': (string);
  'until_ms'?: (string);
  'clamp': (boolean);
  'start'?: "seq_num"|"timestamp_ms"|"tail_offset";
  '_until_ms'?: "until_ms";
}
