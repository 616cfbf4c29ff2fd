import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { AppendAck as _s2_v1_AppendAck, AppendAck__Output as _s2_v1_AppendAck__Output } from './s2/v1/AppendAck';
import type { AppendInput as _s2_v1_AppendInput, AppendInput__Output as _s2_v1_AppendInput__Output } from './s2/v1/AppendInput';
import type { AppendRecord as _s2_v1_AppendRecord, AppendRecord__Output as _s2_v1_AppendRecord__Output } from './s2/v1/AppendRecord';
import type { Header as _s2_v1_Header, Header__Output as _s2_v1_Header__Output } from './s2/v1/Header';
import type { ReadBatch as _s2_v1_ReadBatch, ReadBatch__Output as _s2_v1_ReadBatch__Output } from './s2/v1/ReadBatch';
import type { SequencedRecord as _s2_v1_SequencedRecord, SequencedRecord__Output as _s2_v1_SequencedRecord__Output } from './s2/v1/SequencedRecord';
import type { StreamPosition as _s2_v1_StreamPosition, StreamPosition__Output as _s2_v1_StreamPosition__Output } from './s2/v1/StreamPosition';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  s2: {
    v1: {
      AppendAck: MessageTypeDefinition<_s2_v1_AppendAck, _s2_v1_AppendAck__Output>
      AppendInput: MessageTypeDefinition<_s2_v1_AppendInput, _s2_v1_AppendInput__Output>
      AppendRecord: MessageTypeDefinition<_s2_v1_AppendRecord, _s2_v1_AppendRecord__Output>
      Header: MessageTypeDefinition<_s2_v1_Header, _s2_v1_Header__Output>
      ReadBatch: MessageTypeDefinition<_s2_v1_ReadBatch, _s2_v1_ReadBatch__Output>
      SequencedRecord: MessageTypeDefinition<_s2_v1_SequencedRecord, _s2_v1_SequencedRecord__Output>
      StreamPosition: MessageTypeDefinition<_s2_v1_StreamPosition, _s2_v1_StreamPosition__Output>
    }
  }
}

