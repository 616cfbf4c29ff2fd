// Original file: proto/nova/v1/metadata.proto

export const Class = {
  CLASS_UNSPECIFIED: 'CLASS_UNSPECIFIED',
  CLASS_STANDARD: 'CLASS_STANDARD',
  CLASS_EXPRESS: 'CLASS_EXPRESS',
} as const;

export type Class =
  | 'CLASS_UNSPECIFIED'
  | 0
  | 'CLASS_STANDARD'
  | 1
  | 'CLASS_EXPRESS'
  | 2

export type Class__Output = typeof Class[keyof typeof Class]
