// Original file: proto/nova/v1/dataplane.proto


export interface ExchangeTokenRequest {
  'key_id'?: (string);
  'secret'?: (string);
  'bucket'?: (string);
  'scope'?: (string);
  'ttl_seconds'?: (number);
  'grant'?: "bucket"|"scope";
}

export interface ExchangeTokenRequest__Output {
  'key_id': (string);
  'secret': (string);
  'bucket'?: (string);
  'scope'?: (string);
  'ttl_seconds': (number);
  'grant'?: "bucket"|"scope";
}
