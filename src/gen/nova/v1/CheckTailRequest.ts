// Original file: proto/nova/v1/dataplane.proto


export interface CheckTailRequest {
  'bucket'?: (string);
  'key'?: (string);
}

export interface CheckTailRequest__Output {
  'bucket': (string);
  'key': (string);
}
