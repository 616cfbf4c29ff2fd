// Original file: proto/nova/v1/dataplane.proto

import type { ReadPlanEntry as _nova_v1_ReadPlanEntry, ReadPlanEntry__Output as _nova_v1_ReadPlanEntry__Output } from '../../nova/v1/ReadPlanEntry';
import type { Long } from '@grpc/proto-loader';

export interface ReadPlanResponse {
  'entries'?: (_nova_v1_ReadPlanEntry)[];
  'vended_until'?: (number | string | Long);
  'more'?: (boolean);
  'expires_at_unix_ms'?: (number | string | Long);
  '_vended_until'?: "vended_until";
}

export interface ReadPlanResponse__Output {
  'entries': (_nova_v1_ReadPlanEntry__Output)[];
  'vended_until'?: (string);
  'more': (boolean);
  'expires_at_unix_ms': (string);
  '_vended_until'?: "vended_until";
}
