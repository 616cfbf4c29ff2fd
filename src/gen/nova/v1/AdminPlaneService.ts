// Original file: proto/nova/v1/adminplane.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { HealthRequest as _nova_v1_HealthRequest, HealthRequest__Output as _nova_v1_HealthRequest__Output } from '../../nova/v1/HealthRequest';
import type { HealthResponse as _nova_v1_HealthResponse, HealthResponse__Output as _nova_v1_HealthResponse__Output } from '../../nova/v1/HealthResponse';
import type { SettleStarRequest as _nova_v1_SettleStarRequest, SettleStarRequest__Output as _nova_v1_SettleStarRequest__Output } from '../../nova/v1/SettleStarRequest';
import type { SettleStarResponse as _nova_v1_SettleStarResponse, SettleStarResponse__Output as _nova_v1_SettleStarResponse__Output } from '../../nova/v1/SettleStarResponse';
import type { StarStatsRequest as _nova_v1_StarStatsRequest, StarStatsRequest__Output as _nova_v1_StarStatsRequest__Output } from '../../nova/v1/StarStatsRequest';
import type { StarStatsResponse as _nova_v1_StarStatsResponse, StarStatsResponse__Output as _nova_v1_StarStatsResponse__Output } from '../../nova/v1/StarStatsResponse';

export interface AdminPlaneServiceClient extends grpc.Client {
  Health(argument: _nova_v1_HealthRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_HealthResponse__Output>): grpc.ClientUnaryCall;
  Health(argument: _nova_v1_HealthRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_nova_v1_HealthResponse__Output>): grpc.ClientUnaryCall;
  Health(argument: _nova_v1_HealthRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_HealthResponse__Output>): grpc.ClientUnaryCall;
  Health(argument: _nova_v1_HealthRequest, callback: grpc.requestCallback<_nova_v1_HealthResponse__Output>): grpc.ClientUnaryCall;
  health(argument: _nova_v1_HealthRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_HealthResponse__Output>): grpc.ClientUnaryCall;
  health(argument: _nova_v1_HealthRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_nova_v1_HealthResponse__Output>): grpc.ClientUnaryCall;
  health(argument: _nova_v1_HealthRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_HealthResponse__Output>): grpc.ClientUnaryCall;
  health(argument: _nova_v1_HealthRequest, callback: grpc.requestCallback<_nova_v1_HealthResponse__Output>): grpc.ClientUnaryCall;
  
  SettleStar(argument: _nova_v1_SettleStarRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_SettleStarResponse__Output>): grpc.ClientUnaryCall;
  SettleStar(argument: _nova_v1_SettleStarRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_nova_v1_SettleStarResponse__Output>): grpc.ClientUnaryCall;
  SettleStar(argument: _nova_v1_SettleStarRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_SettleStarResponse__Output>): grpc.ClientUnaryCall;
  SettleStar(argument: _nova_v1_SettleStarRequest, callback: grpc.requestCallback<_nova_v1_SettleStarResponse__Output>): grpc.ClientUnaryCall;
  settleStar(argument: _nova_v1_SettleStarRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_SettleStarResponse__Output>): grpc.ClientUnaryCall;
  settleStar(argument: _nova_v1_SettleStarRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_nova_v1_SettleStarResponse__Output>): grpc.ClientUnaryCall;
  settleStar(argument: _nova_v1_SettleStarRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_SettleStarResponse__Output>): grpc.ClientUnaryCall;
  settleStar(argument: _nova_v1_SettleStarRequest, callback: grpc.requestCallback<_nova_v1_SettleStarResponse__Output>): grpc.ClientUnaryCall;
  
  StarStats(argument: _nova_v1_StarStatsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_StarStatsResponse__Output>): grpc.ClientUnaryCall;
  StarStats(argument: _nova_v1_StarStatsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_nova_v1_StarStatsResponse__Output>): grpc.ClientUnaryCall;
  StarStats(argument: _nova_v1_StarStatsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_StarStatsResponse__Output>): grpc.ClientUnaryCall;
  StarStats(argument: _nova_v1_StarStatsRequest, callback: grpc.requestCallback<_nova_v1_StarStatsResponse__Output>): grpc.ClientUnaryCall;
  starStats(argument: _nova_v1_StarStatsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_StarStatsResponse__Output>): grpc.ClientUnaryCall;
  starStats(argument: _nova_v1_StarStatsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_nova_v1_StarStatsResponse__Output>): grpc.ClientUnaryCall;
  starStats(argument: _nova_v1_StarStatsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_StarStatsResponse__Output>): grpc.ClientUnaryCall;
  starStats(argument: _nova_v1_StarStatsRequest, callback: grpc.requestCallback<_nova_v1_StarStatsResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface AdminPlaneServiceHandlers extends grpc.UntypedServiceImplementation {
  Health: grpc.handleUnaryCall<_nova_v1_HealthRequest__Output, _nova_v1_HealthResponse>;
  
  SettleStar: grpc.handleUnaryCall<_nova_v1_SettleStarRequest__Output, _nova_v1_SettleStarResponse>;
  
  StarStats: grpc.handleUnaryCall<_nova_v1_StarStatsRequest__Output, _nova_v1_StarStatsResponse>;
  
}

export interface AdminPlaneServiceDefinition extends grpc.ServiceDefinition {
  Health: MethodDefinition<_nova_v1_HealthRequest, _nova_v1_HealthResponse, _nova_v1_HealthRequest__Output, _nova_v1_HealthResponse__Output>
  SettleStar: MethodDefinition<_nova_v1_SettleStarRequest, _nova_v1_SettleStarResponse, _nova_v1_SettleStarRequest__Output, _nova_v1_SettleStarResponse__Output>
  StarStats: MethodDefinition<_nova_v1_StarStatsRequest, _nova_v1_StarStatsResponse, _nova_v1_StarStatsRequest__Output, _nova_v1_StarStatsResponse__Output>
}
