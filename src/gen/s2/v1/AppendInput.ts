// Original file: proto/s2/v1/s2.proto

import type { AppendRecord as _s2_v1_AppendRecord, AppendRecord__Output as _s2_v1_AppendRecord__Output } from '../../s2/v1/AppendRecord';
import type { Long } from '@grpc/proto-loader';

export interface AppendInput {
  'records'?: (_s2_v1_AppendRecord)[];
  'match_seq_num'?: (number | string | Long);
  'fencing_token'?: (string);
  '_match_seq_num'?: "match_seq_num";
  '_fencing_token'?: "fencing_token";
}

export interface AppendInput__Output {
  'records': (_s2_v1_AppendRecord__Output)[];
  'match_seq_num'?: (string);
  'fencing_token'?: (string);
  '_match_seq_num'?: "match_seq_num";
  '_fencing_token'?: "fencing_token";
}
