// Original file: proto/s2/v1/s2.proto

import type { StreamPosition as _s2_v1_StreamPosition, StreamPosition__Output as _s2_v1_StreamPosition__Output } from '../../s2/v1/StreamPosition';

export interface AppendAck {
  'start'?: (_s2_v1_StreamPosition | null);
  'end'?: (_s2_v1_StreamPosition | null);
  'tail'?: (_s2_v1_StreamPosition | null);
}

export interface AppendAck__Output {
  'start': (_s2_v1_StreamPosition__Output | null);
  'end': (_s2_v1_StreamPosition__Output | null);
  'tail': (_s2_v1_StreamPosition__Output | null);
}
