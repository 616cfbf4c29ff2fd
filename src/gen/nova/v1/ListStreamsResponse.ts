// Original file: proto/nova/v1/dataplane.proto

import type { Stream as _nova_v1_Stream, Stream__Output as _nova_v1_Stream__Output } from '../../nova/v1/Stream';

export interface ListStreamsResponse {
  'streams'?: (_nova_v1_Stream)[];
  'next'?: (string);
}

export interface ListStreamsResponse__Output {
  'streams': (_nova_v1_Stream__Output)[];
  'next': (string);
}
