// Original file: proto/nova/v1/adminplane.proto

import type { Long } from '@grpc/proto-loader';

export interface SettledStream {
  'bucket'?: (string);
  'key'?: (string);
  'stream_id'?: (string);
  'settled_until'?: (number | string | Long);
  'records'?: (number | string | Long);
  'bytes'?: (number | string | Long);
}

export interface SettledStream__Output {
  'bucket': (string);
  'key': (string);
  'stream_id': (string);
  'settled_until': (string);
  'records': (string);
  'bytes': (string);
}
