// Original file: proto/nova/v1/dataplane.proto

import type { Stream as _nova_v1_Stream, Stream__Output as _nova_v1_Stream__Output } from '../../nova/v1/Stream';

export interface CreateStreamResponse {
  'stream'?: (_nova_v1_Stream | null);
}

export interface CreateStreamResponse__Output {
  'stream': (_nova_v1_Stream__Output | null);
}
