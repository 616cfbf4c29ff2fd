// Original file: proto/nova/v1/dataplane.proto


export interface GetBucketRequest {
  'name'?: (string);
}

export interface GetBucketRequest__Output {
  'name': (string);
}
