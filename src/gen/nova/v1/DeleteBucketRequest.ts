// Original file: proto/nova/v1/dataplane.proto


export interface DeleteBucketRequest {
  'name'?: (string);
}

export interface DeleteBucketRequest__Output {
  'name': (string);
}
