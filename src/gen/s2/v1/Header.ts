// Original file: proto/s2/v1/s2.proto


export interface Header {
  'name'?: (Buffer | Uint8Array | string);
  'value'?: (Buffer | Uint8Array | string);
}

export interface Header__Output {
  'name': (Buffer);
  'value': (Buffer);
}
