// Original file: proto/nova/v1/dataplane.proto


export interface ObjectLocation {
  'storage_bucket'?: (string);
  'object_key'?: (string);
}

export interface ObjectLocation__Output {
  'storage_bucket': (string);
  'object_key': (string);
}
