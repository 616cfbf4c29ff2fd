// Original file: proto/nova/v1/dataplane.proto

import type { Long } from '@grpc/proto-loader';

export interface ExchangeTokenResponse {
  'token'?: (string);
  'expires_at_unix_ms'?: (number | string | Long);
}

export interface ExchangeTokenResponse__Output {
  'token': (string);
  'expires_at_unix_ms': (string);
}
