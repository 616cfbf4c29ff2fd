// Original file: proto/nova/v1/dataplane.proto


export interface ListStreamsRequest {
  'bucket'?: (string);
  'start_after'?: (string);
  'limit'?: (number);
  'prefix'?: (string);
}

export interface ListStreamsRequest__Output {
  'bucket': (string);
  'start_after': (string);
  'limit': (number);
  'prefix': (string);
}
