// Original file: proto/nova/v1/dataplane.proto

import type { Bucket as _nova_v1_Bucket, Bucket__Output as _nova_v1_Bucket__Output } from '../../nova/v1/Bucket';

export interface ListBucketsResponse {
  'buckets'?: (_nova_v1_Bucket)[];
  'next'?: (string);
}

export interface ListBucketsResponse__Output {
  'buckets': (_nova_v1_Bucket__Output)[];
  'next': (string);
}
