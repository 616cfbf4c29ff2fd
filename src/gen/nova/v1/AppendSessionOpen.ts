// Original file: proto/nova/v1/dataplane.proto


export interface AppendSessionOpen {
  'bucket'?: (string);
  'key'?: (string);
  'fencing_token'?: (string);
  'end_on_refusal'?: (boolean);
  '_fencing_token'?: "fencing_token";
}

export interface AppendSessionOpen__Output {
  'bucket': (string);
  'key': (string);
  'fencing_token'?: (string);
  'end_on_refusal': (boolean);
  '_fencing_token'?: "fencing_token";
}
