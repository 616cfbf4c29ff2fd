// Original file: proto/nova/v1/dataplane.proto

import type { AppendRecord as _nova_v1_AppendRecord, AppendRecord__Output as _nova_v1_AppendRecord__Output } from '../../nova/v1/AppendRecord';
import type { Long } from '@grpc/proto-loader';

export interface AppendSessionBatch {
  'records'?: (_nova_v1_AppendRecord)[];
  'match_seq_num'?: (number | string | Long);
  '_match_seq_num'?: "match_seq_num";
}

export interface AppendSessionBatch__Output {
  'records': (_nova_v1_AppendRecord__Output)[];
  'match_seq_num'?: (string);
  '_match_seq_num'?: "match_seq_num";
}
