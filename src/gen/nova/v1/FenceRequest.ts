// Original file: proto/nova/v1/dataplane.proto


export interface FenceRequest {
  'bucket'?: (string);
  'key'?: (string);
  'fencing_token'?: (string);
}

export interface FenceRequest__Output {
  'bucket': (string);
  'key': (string);
  'fencing_token': (string);
}
