// Original file: proto/nova/v1/dataplane.proto

import type { Position as _nova_v1_Position, Position__Output as _nova_v1_Position__Output } from '../../nova/v1/Position';

export interface AppendSessionOpened {
  'window'?: (number);
  'tail'?: (_nova_v1_Position | null);
  'star_id'?: (string);
}

export interface AppendSessionOpened__Output {
  'window': (number);
  'tail': (_nova_v1_Position__Output | null);
  'star_id': (string);
}
