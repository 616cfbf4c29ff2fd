// Original file: proto/nova/v1/adminplane.proto


export interface HealthResponse {
  'star_id'?: (string);
  'ready'?: (boolean);
  'members'?: (string)[];
  'leading'?: (string)[];
}

export interface HealthResponse__Output {
  'star_id': (string);
  'ready': (boolean);
  'members': (string)[];
  'leading': (string)[];
}
