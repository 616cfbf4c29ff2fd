// Original file: proto/nova/v1/dataplane.proto

import type { Header as _nova_v1_Header, Header__Output as _nova_v1_Header__Output } from '../../nova/v1/Header';
import type { Long } from '@grpc/proto-loader';

export interface Record {
  'seq_num'?: (number | string | Long);
  'timestamp_ms'?: (number | string | Long);
  'body'?: (Buffer | Uint8Array | string);
  'headers'?: (_nova_v1_Header)[];
}

export interface Record__Output {
  'seq_num': (string);
  'timestamp_ms': (string);
  'body': (Buffer);
  'headers': (_nova_v1_Header__Output)[];
}
