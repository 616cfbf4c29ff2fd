// Original file: proto/nova/v1/dataplane.proto

import type { Header as _nova_v1_Header, Header__Output as _nova_v1_Header__Output } from '../../nova/v1/Header';
import type { Long } from '@grpc/proto-loader';

export interface AppendRecord {
  'body'?: (Buffer | Uint8Array | string);
  'headers'?: (_nova_v1_Header)[];
  'timestamp_ms'?: (number | string | Long);
  '_timestamp_ms'?: "timestamp_ms";
}

export interface AppendRecord__Output {
  'body': (Buffer);
  'headers': (_nova_v1_Header__Output)[];
  'timestamp_ms'?: (string);
  '_timestamp_ms'?: "timestamp_ms";
}
