// Original file: proto/nova/v1/dataplane.proto


export interface Header {
  'name'?: (Buffer | Uint8Array | string);
  'value'?: (Buffer | Uint8Array | string);
}

export interface Header__Output {
  'name': (Buffer);
  'value': (Buffer);
}
