// Original file: proto/nova/v1/dataplane.proto

import type { Bucket as _nova_v1_Bucket, Bucket__Output as _nova_v1_Bucket__Output } from '../../nova/v1/Bucket';

export interface GetBucketResponse {
  'bucket'?: (_nova_v1_Bucket | null);
}

export interface GetBucketResponse__Output {
  'bucket': (_nova_v1_Bucket__Output | null);
}
