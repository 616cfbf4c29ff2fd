// Original file: proto/nova/v1/dataplane.proto


// Original file: proto/nova/v1/dataplane.proto

export const _nova_v1_NotFoundDetail_Resource = {
  RESOURCE_UNSPECIFIED: 'RESOURCE_UNSPECIFIED',
  RESOURCE_BUCKET: 'RESOURCE_BUCKET',
  RESOURCE_STREAM: 'RESOURCE_STREAM',
} as const;

export type _nova_v1_NotFoundDetail_Resource =
  | 'RESOURCE_UNSPECIFIED'
  | 0
  | 'RESOURCE_BUCKET'
  | 1
  | 'RESOURCE_STREAM'
  | 2

export type _nova_v1_NotFoundDetail_Resource__Output = typeof _nova_v1_NotFoundDetail_Resource[keyof typeof _nova_v1_NotFoundDetail_Resource]

export interface NotFoundDetail {
  'resource'?: (_nova_v1_NotFoundDetail_Resource);
  'bucket'?: (string);
  'key'?: (string);
}

export interface NotFoundDetail__Output {
  'resource': (_nova_v1_NotFoundDetail_Resource__Output);
  'bucket': (string);
  'key': (string);
}
