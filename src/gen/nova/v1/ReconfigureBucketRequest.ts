// Original file: proto/nova/v1/dataplane.proto

import type { BucketConfig as _nova_v1_BucketConfig, BucketConfig__Output as _nova_v1_BucketConfig__Output } from '../../nova/v1/BucketConfig';

export interface ReconfigureBucketRequest {
  'name'?: (string);
  'config'?: (_nova_v1_BucketConfig | null);
}

export interface ReconfigureBucketRequest__Output {
  'name': (string);
  'config': (_nova_v1_BucketConfig__Output | null);
}
