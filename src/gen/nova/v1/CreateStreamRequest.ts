// Original file: proto/nova/v1/dataplane.proto

import type { StreamConfig as _nova_v1_StreamConfig, StreamConfig__Output as _nova_v1_StreamConfig__Output } from '../../nova/v1/StreamConfig';

export interface CreateStreamRequest {
  'bucket'?: (string);
  'key'?: (string);
  'config'?: (_nova_v1_StreamConfig | null);
  'creation_token'?: (string);
}

export interface CreateStreamRequest__Output {
  'bucket': (string);
  'key': (string);
  'config': (_nova_v1_StreamConfig__Output | null);
  'creation_token': (string);
}
