import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { Bucket as _nova_v1_Bucket, Bucket__Output as _nova_v1_Bucket__Output } from './nova/v1/Bucket';
import type { BucketConfig as _nova_v1_BucketConfig, BucketConfig__Output as _nova_v1_BucketConfig__Output } from './nova/v1/BucketConfig';
import type { Stream as _nova_v1_Stream, Stream__Output as _nova_v1_Stream__Output } from './nova/v1/Stream';
import type { StreamConfig as _nova_v1_StreamConfig, StreamConfig__Output as _nova_v1_StreamConfig__Output } from './nova/v1/StreamConfig';
import type { StreamReconfiguration as _nova_v1_StreamReconfiguration, StreamReconfiguration__Output as _nova_v1_StreamReconfiguration__Output } from './nova/v1/StreamReconfiguration';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  nova: {
    v1: {
      Bucket: MessageTypeDefinition<_nova_v1_Bucket, _nova_v1_Bucket__Output>
      BucketConfig: MessageTypeDefinition<_nova_v1_BucketConfig, _nova_v1_BucketConfig__Output>
      Class: EnumTypeDefinition
      ProducerPolicy: EnumTypeDefinition
      Stream: MessageTypeDefinition<_nova_v1_Stream, _nova_v1_Stream__Output>
      StreamConfig: MessageTypeDefinition<_nova_v1_StreamConfig, _nova_v1_StreamConfig__Output>
      StreamReconfiguration: MessageTypeDefinition<_nova_v1_StreamReconfiguration, _nova_v1_StreamReconfiguration__Output>
      TimestampingMode: EnumTypeDefinition
    }
  }
}

