// Original file: proto/nova/v1/dataplane.proto


export interface ListBucketsRequest {
  'prefix'?: (string);
  'start_after'?: (string);
  'limit'?: (number);
}

export interface ListBucketsRequest__Output {
  'prefix': (string);
  'start_after': (string);
  'limit': (number);
}
