// Original file: proto/nova/v1/dataplane.proto

import type { Stream as _nova_v1_Stream, Stream__Output as _nova_v1_Stream__Output } from '../../nova/v1/Stream';

export interface GetStreamResponse {
  'stream'?: (_nova_v1_Stream | null);
  'fencing_token'?: (string);
  'closed'?: (boolean);
}

export interface GetStreamResponse__Output {
  'stream': (_nova_v1_Stream__Output | null);
  'fencing_token': (string);
  'closed': (boolean);
}
