// Original file: proto/nova/v1/dataplane.proto


export interface NotOwner {
  'leader_id'?: (string);
  'leader_address'?: (string);
}

export interface NotOwner__Output {
  'leader_id': (string);
  'leader_address': (string);
}
