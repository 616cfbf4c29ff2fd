// Original file: proto/nova/v1/metadata.proto

export const ProducerPolicy = {
  PRODUCER_POLICY_UNSPECIFIED: 'PRODUCER_POLICY_UNSPECIFIED',
  PRODUCER_POLICY_ANY: 'PRODUCER_POLICY_ANY',
  PRODUCER_POLICY_FENCED: 'PRODUCER_POLICY_FENCED',
} as const;

export type ProducerPolicy =
  | 'PRODUCER_POLICY_UNSPECIFIED'
  | 0
  | 'PRODUCER_POLICY_ANY'
  | 1
  | 'PRODUCER_POLICY_FENCED'
  | 2

export type ProducerPolicy__Output = typeof ProducerPolicy[keyof typeof ProducerPolicy]
