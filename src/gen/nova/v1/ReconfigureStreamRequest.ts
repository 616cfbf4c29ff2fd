// Original file: proto/nova/v1/dataplane.proto

import type { StreamReconfiguration as _nova_v1_StreamReconfiguration, StreamReconfiguration__Output as _nova_v1_StreamReconfiguration__Output } from '../../nova/v1/StreamReconfiguration';

export interface ReconfigureStreamRequest {
  'bucket'?: (string);
  'key'?: (string);
  'config'?: (_nova_v1_StreamReconfiguration | null);
}

export interface ReconfigureStreamRequest__Output {
  'bucket': (string);
  'key': (string);
  'config': (_nova_v1_StreamReconfiguration__Output | null);
}
