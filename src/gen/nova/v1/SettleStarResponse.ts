// Original file: proto/nova/v1/adminplane.proto

import type { SettledStream as _nova_v1_SettledStream, SettledStream__Output as _nova_v1_SettledStream__Output } from '../../nova/v1/SettledStream';
import type { Long } from '@grpc/proto-loader';

export interface SettleStarResponse {
  'streams'?: (_nova_v1_SettledStream)[];
  'records'?: (number | string | Long);
  'bytes'?: (number | string | Long);
  'chunks'?: (number | string | Long);
  'log_objects_outstanding'?: (number | string | Long);
}

export interface SettleStarResponse__Output {
  'streams': (_nova_v1_SettledStream__Output)[];
  'records': (string);
  'bytes': (string);
  'chunks': (string);
  'log_objects_outstanding': (string);
}
