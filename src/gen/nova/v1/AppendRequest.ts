// Original file: proto/nova/v1/dataplane.proto

import type { AppendRecord as _nova_v1_AppendRecord, AppendRecord__Output as _nova_v1_AppendRecord__Output } from '../../nova/v1/AppendRecord';
import type { Producer as _nova_v1_Producer, Producer__Output as _nova_v1_Producer__Output } from '../../nova/v1/Producer';
import type { Long } from '@grpc/proto-loader';

export interface AppendRequest {
  'bucket'?: (string);
  'key'?: (string);
  'records'?: (_nova_v1_AppendRecord)[];
  'match_seq_num'?: (number | string | Long);
  'fencing_token'?: (string);
  'producer'?: (_nova_v1_Producer | null);
  'close'?: (boolean);
  'content_type'?: (string);
  'writer_seq'?: (string);
  '_match_seq_num'?: "match_seq_num";
  '_fencing_token'?: "fencing_token";
  '_producer'?: "producer";
}

export interface AppendRequest__Output {
  'bucket': (string);
  'key': (string);
  'records': (_nova_v1_AppendRecord__Output)[];
  'match_seq_num'?: (string);
  'fencing_token'?: (string);
  'producer'?: (_nova_v1_Producer__Output | null);
  'close': (boolean);
  'content_type': (string);
  'writer_seq': (string);
  '_match_seq_num'?: "match_seq_num";
  '_fencing_token'?: "fencing_token";
  '_producer'?: "producer";
}
