// Original file: proto/nova/v1/dataplane.proto

import type { AppendResponse as _nova_v1_AppendResponse, AppendResponse__Output as _nova_v1_AppendResponse__Output } from '../../nova/v1/AppendResponse';
import type { SeqNumMismatch as _nova_v1_SeqNumMismatch, SeqNumMismatch__Output as _nova_v1_SeqNumMismatch__Output } from '../../nova/v1/SeqNumMismatch';
import type { Long } from '@grpc/proto-loader';

export interface AppendSessionAck {
  'batch_index'?: (number | string | Long);
  'appended'?: (_nova_v1_AppendResponse | null);
  'seq_num_mismatch'?: (_nova_v1_SeqNumMismatch | null);
  'outcome'?: "appended"|"seq_num_mismatch";
}

export interface AppendSessionAck__Output {
  'batch_index': (string);
  'appended'?: (_nova_v1_AppendResponse__Output | null);
  'seq_num_mismatch'?: (_nova_v1_SeqNumMismatch__Output | null);
  'outcome'?: "appended"|"seq_num_mismatch";
}
