// Original file: proto/nova/v1/dataplane.proto


export interface FencingTokenMismatch {
  'token_installed'?: (boolean);
}

export interface FencingTokenMismatch__Output {
  'token_installed': (boolean);
}
