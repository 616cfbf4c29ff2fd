// Original file: proto/nova/v1/dataplane.proto

import type { AppendRecord as _nova_v1_AppendRecord, AppendRecord__Output as _nova_v1_AppendRecord__Output } from '../../nova/v1/AppendRecord';
import type { Producer as _nova_v1_Producer, Producer__Output as _nova_v1_Producer__Output } from '../../nova/v1/Producer';
import type { Long } from '@grpc/proto-loader';

export interface AppendSessionBatch {
  'records'?: (_nova_v1_AppendRecord)[];
  'match_seq_num'?: (number | string | Long);
  'producer'?: (_nova_v1_Producer | null);
  '_match_seq_num'?: "match_seq_num";
  '_producer'?: "producer";
}

export interface AppendSessionBatch__Output {
  'records': (_nova_v1_AppendRecord__Output)[];
  'match_seq_num'?: (string);
  'producer'?: (_nova_v1_Producer__Output | null);
  '_match_seq_num'?: "match_seq_num";
  '_producer'?: "producer";
}
