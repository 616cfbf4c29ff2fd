import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { AdminPlaneServiceClient as _nova_v1_AdminPlaneServiceClient, AdminPlaneServiceDefinition as _nova_v1_AdminPlaneServiceDefinition } from './nova/v1/AdminPlaneService';
import type { HealthRequest as _nova_v1_HealthRequest, HealthRequest__Output as _nova_v1_HealthRequest__Output } from './nova/v1/HealthRequest';
import type { HealthResponse as _nova_v1_HealthResponse, HealthResponse__Output as _nova_v1_HealthResponse__Output } from './nova/v1/HealthResponse';
import type { MemoryPart as _nova_v1_MemoryPart, MemoryPart__Output as _nova_v1_MemoryPart__Output } from './nova/v1/MemoryPart';
import type { SettleStarRequest as _nova_v1_SettleStarRequest, SettleStarRequest__Output as _nova_v1_SettleStarRequest__Output } from './nova/v1/SettleStarRequest';
import type { SettleStarResponse as _nova_v1_SettleStarResponse, SettleStarResponse__Output as _nova_v1_SettleStarResponse__Output } from './nova/v1/SettleStarResponse';
import type { SettledStream as _nova_v1_SettledStream, SettledStream__Output as _nova_v1_SettledStream__Output } from './nova/v1/SettledStream';
import type { StarStatsRequest as _nova_v1_StarStatsRequest, StarStatsRequest__Output as _nova_v1_StarStatsRequest__Output } from './nova/v1/StarStatsRequest';
import type { StarStatsResponse as _nova_v1_StarStatsResponse, StarStatsResponse__Output as _nova_v1_StarStatsResponse__Output } from './nova/v1/StarStatsResponse';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  nova: {
    v1: {
      AdminPlaneService: SubtypeConstructor<typeof grpc.Client, _nova_v1_AdminPlaneServiceClient> & { service: _nova_v1_AdminPlaneServiceDefinition }
      HealthRequest: MessageTypeDefinition<_nova_v1_HealthRequest, _nova_v1_HealthRequest__Output>
      HealthResponse: MessageTypeDefinition<_nova_v1_HealthResponse, _nova_v1_HealthResponse__Output>
      MemoryPart: MessageTypeDefinition<_nova_v1_MemoryPart, _nova_v1_MemoryPart__Output>
      SettleStarRequest: MessageTypeDefinition<_nova_v1_SettleStarRequest, _nova_v1_SettleStarRequest__Output>
      SettleStarResponse: MessageTypeDefinition<_nova_v1_SettleStarResponse, _nova_v1_SettleStarResponse__Output>
      SettledStream: MessageTypeDefinition<_nova_v1_SettledStream, _nova_v1_SettledStream__Output>
      StarStatsRequest: MessageTypeDefinition<_nova_v1_StarStatsRequest, _nova_v1_StarStatsRequest__Output>
      StarStatsResponse: MessageTypeDefinition<_nova_v1_StarStatsResponse, _nova_v1_StarStatsResponse__Output>
    }
  }
}

