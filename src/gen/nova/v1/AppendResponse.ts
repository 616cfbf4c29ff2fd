// Original file: proto/nova/v1/dataplane.proto

import type { Position as _nova_v1_Position, Position__Output as _nova_v1_Position__Output } from '../../nova/v1/Position';
import type { Long } from '@grpc/proto-loader';

export interface AppendResponse {
  'start'?: (_nova_v1_Position | null);
  'end'?: (_nova_v1_Position | null);
  'tail'?: (_nova_v1_Position | null);
  'duplicate'?: (boolean);
  'closed'?: (boolean);
  'producer_seq'?: (number | string | Long);
  '_producer_seq'?: "producer_seq";
}

export interface AppendResponse__Output {
  'start': (_nova_v1_Position__Output | null);
  'end': (_nova_v1_Position__Output | null);
  'tail': (_nova_v1_Position__Output | null);
  'duplicate': (boolean);
  'closed': (boolean);
  'producer_seq'?: (string);
  '_producer_seq'?: "producer_seq";
}
