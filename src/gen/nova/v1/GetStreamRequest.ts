// Original file: proto/nova/v1/dataplane.proto


export interface GetStreamRequest {
  'bucket'?: (string);
  'key'?: (string);
}

export interface GetStreamRequest__Output {
  'bucket': (string);
  'key': (string);
}
