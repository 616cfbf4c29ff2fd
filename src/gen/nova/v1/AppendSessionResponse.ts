// Original file: proto/nova/v1/dataplane.proto

import type { AppendSessionOpened as _nova_v1_AppendSessionOpened, AppendSessionOpened__Output as _nova_v1_AppendSessionOpened__Output } from '../../nova/v1/AppendSessionOpened';
import type { AppendSessionAck as _nova_v1_AppendSessionAck, AppendSessionAck__Output as _nova_v1_AppendSessionAck__Output } from '../../nova/v1/AppendSessionAck';

export interface AppendSessionResponse {
  'opened'?: (_nova_v1_AppendSessionOpened | null);
  'ack'?: (_nova_v1_AppendSessionAck | null);
  'frame'?: "opened"|"ack";
}

export interface AppendSessionResponse__Output {
  'opened'?: (_nova_v1_AppendSessionOpened__Output | null);
  'ack'?: (_nova_v1_AppendSessionAck__Output | null);
  'frame'?: "opened"|"ack";
}
