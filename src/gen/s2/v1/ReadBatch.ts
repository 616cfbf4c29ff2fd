// Original file: proto/s2/v1/s2.proto

import type { SequencedRecord as _s2_v1_SequencedRecord, SequencedRecord__Output as _s2_v1_SequencedRecord__Output } from '../../s2/v1/SequencedRecord';
import type { StreamPosition as _s2_v1_StreamPosition, StreamPosition__Output as _s2_v1_StreamPosition__Output } from '../../s2/v1/StreamPosition';

export interface ReadBatch {
  'records'?: (_s2_v1_SequencedRecord)[];
  'tail'?: (_s2_v1_StreamPosition | null);
  '_tail'?: "tail";
}

export interface ReadBatch__Output {
  'records': (_s2_v1_SequencedRecord__Output)[];
  'tail'?: (_s2_v1_StreamPosition__Output | null);
  '_tail'?: "tail";
}
