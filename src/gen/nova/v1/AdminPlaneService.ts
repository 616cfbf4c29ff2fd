// Original file: proto/nova/v1/adminplane.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { HealthRequest as _nova_v1_HealthRequest, HealthRequest__Output as _nova_v1_HealthRequest__Output } from '../../nova/v1/HealthRequest';
import type { HealthResponse as _nova_v1_HealthResponse, HealthResponse__Output as _nova_v1_HealthResponse__Output } from '../../nova/v1/HealthResponse';

export interface AdminPlaneServiceClient extends grpc.Client {
  Health(argument: _nova_v1_HealthRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_HealthResponse__Output>): grpc.ClientUnaryCall;
  Health(argument: _nova_v1_HealthRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_nova_v1_HealthResponse__Output>): grpc.ClientUnaryCall;
  Health(argument: _nova_v1_HealthRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_HealthResponse__Output>): grpc.ClientUnaryCall;
  Health(argument: _nova_v1_HealthRequest, callback: grpc.requestCallback<_nova_v1_HealthResponse__Output>): grpc.ClientUnaryCall;
  health(argument: _nova_v1_HealthRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_HealthResponse__Output>): grpc.ClientUnaryCall;
  health(argument: _nova_v1_HealthRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_nova_v1_HealthResponse__Output>): grpc.ClientUnaryCall;
  health(argument: _nova_v1_HealthRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_HealthResponse__Output>): grpc.ClientUnaryCall;
  health(argument: _nova_v1_HealthRequest, callback: grpc.requestCallback<_nova_v1_HealthResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface AdminPlaneServiceHandlers extends grpc.UntypedServiceImplementation {
  Health: grpc.handleUnaryCall<_nova_v1_HealthRequest__Output, _nova_v1_HealthResponse>;
  
}

export interface AdminPlaneServiceDefinition extends grpc.ServiceDefinition {
  Health: MethodDefinition<_nova_v1_HealthRequest, _nova_v1_HealthResponse, _nova_v1_HealthRequest__Output, _nova_v1_HealthResponse__Output>
}
