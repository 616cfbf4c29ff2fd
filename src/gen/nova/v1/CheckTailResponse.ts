// Original file: proto/nova/v1/dataplane.proto

import type { Position as _nova_v1_Position, Position__Output as _nova_v1_Position__Output } from '../../nova/v1/Position';

export interface CheckTailResponse {
  'tail'?: (_nova_v1_Position | null);
  'closed'?: (boolean);
}

export interface CheckTailResponse__Output {
  'tail': (_nova_v1_Position__Output | null);
  'closed': (boolean);
}
