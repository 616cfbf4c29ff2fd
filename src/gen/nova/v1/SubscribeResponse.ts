// Original file: proto/nova/v1/dataplane.proto

import type { Record as _nova_v1_Record, Record__Output as _nova_v1_Record__Output } from '../../nova/v1/Record';
import type { Position as _nova_v1_Position, Position__Output as _nova_v1_Position__Output } from '../../nova/v1/Position';
import type { Long } from '@grpc/proto-loader';

export interface SubscribeResponse {
  'records'?: (_nova_v1_Record)[];
  'tail'?: (_nova_v1_Position | null);
  'closed'?: (boolean);
  'trim_point'?: (number | string | Long);
  '_trim_point'?: "trim_point";
}

export interface SubscribeResponse__Output {
  'records': (_nova_v1_Record__Output)[];
  'tail': (_nova_v1_Position__Output | null);
  'closed': (boolean);
  'trim_point'?: (string);
  '_trim_point'?: "trim_point";
}
