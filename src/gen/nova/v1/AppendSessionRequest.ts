// Original file: proto/nova/v1/dataplane.proto

import type { AppendSessionOpen as _nova_v1_AppendSessionOpen, AppendSessionOpen__Output as _nova_v1_AppendSessionOpen__Output } from '../../nova/v1/AppendSessionOpen';
import type { AppendSessionBatch as _nova_v1_AppendSessionBatch, AppendSessionBatch__Output as _nova_v1_AppendSessionBatch__Output } from '../../nova/v1/AppendSessionBatch';

export interface AppendSessionRequest {
  'open'?: (_nova_v1_AppendSessionOpen | null);
  'batch'?: (_nova_v1_AppendSessionBatch | null);
  'frame'?: "open"|"batch";
}

export interface AppendSessionRequest__Output {
  'open'?: (_nova_v1_AppendSessionOpen__Output | null);
  'batch'?: (_nova_v1_AppendSessionBatch__Output | null);
  'frame'?: "open"|"batch";
}
