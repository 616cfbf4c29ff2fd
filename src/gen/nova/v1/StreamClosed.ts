// Original file: proto/nova/v1/dataplane.proto

import type { Position as _nova_v1_Position, Position__Output as _nova_v1_Position__Output } from '../../nova/v1/Position';

export interface StreamClosed {
  'tail'?: (_nova_v1_Position | null);
}

export interface StreamClosed__Output {
  'tail': (_nova_v1_Position__Output | null);
}
