// Original file: proto/s2/v1/s2.proto

import type { Header as _s2_v1_Header, Header__Output as _s2_v1_Header__Output } from '../../s2/v1/Header';
import type { Long } from '@grpc/proto-loader';

export interface SequencedRecord {
  'seq_num'?: (number | string | Long);
  'timestamp'?: (number | string | Long);
  'headers'?: (_s2_v1_Header)[];
  'body'?: (Buffer | Uint8Array | string);
}

export interface SequencedRecord__Output {
  'seq_num': (string);
  'timestamp': (string);
  'headers': (_s2_v1_Header__Output)[];
  'body': (Buffer);
}
