import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { AdminPlaneServiceClient as _nova_v1_AdminPlaneServiceClient, AdminPlaneServiceDefinition as _nova_v1_AdminPlaneServiceDefinition } from './nova/v1/AdminPlaneService';
import type { HealthRequest as _nova_v1_HealthRequest, HealthRequest__Output as _nova_v1_HealthRequest__Output } from './nova/v1/HealthRequest';
import type { HealthResponse as _nova_v1_HealthResponse, HealthResponse__Output as _nova_v1_HealthResponse__Output } from './nova/v1/HealthResponse';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  nova: {
    v1: {
      AdminPlaneService: SubtypeConstructor<typeof grpc.Client, _nova_v1_AdminPlaneServiceClient> & { service: _nova_v1_AdminPlaneServiceDefinition }
      HealthRequest: MessageTypeDefinition<_nova_v1_HealthRequest, _nova_v1_HealthRequest__Output>
      HealthResponse: MessageTypeDefinition<_nova_v1_HealthResponse, _nova_v1_HealthResponse__Output>
    }
  }
}

