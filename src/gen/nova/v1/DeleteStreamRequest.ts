// Original file: proto/nova/v1/dataplane.proto


export interface DeleteStreamRequest {
  'bucket'?: (string);
  'key'?: (string);
}

export interface DeleteStreamRequest__Output {
  'bucket': (string);
  'key': (string);
}
