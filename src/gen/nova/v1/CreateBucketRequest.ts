// Original file: proto/nova/v1/dataplane.proto

import type { BucketConfig as _nova_v1_BucketConfig, BucketConfig__Output as _nova_v1_BucketConfig__Output } from '../../nova/v1/BucketConfig';

export interface CreateBucketRequest {
  'name'?: (string);
  'config'?: (_nova_v1_BucketConfig | null);
  'creation_token'?: (string);
}

export interface CreateBucketRequest__Output {
  'name': (string);
  'config': (_nova_v1_BucketConfig__Output | null);
  'creation_token': (string);
}
