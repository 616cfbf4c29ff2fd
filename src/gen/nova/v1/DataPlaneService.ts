// Original file: proto/nova/v1/dataplane.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { AppendRequest as _nova_v1_AppendRequest, AppendRequest__Output as _nova_v1_AppendRequest__Output } from '../../nova/v1/AppendRequest';
import type { AppendResponse as _nova_v1_AppendResponse, AppendResponse__Output as _nova_v1_AppendResponse__Output } from '../../nova/v1/AppendResponse';
import type { AppendSessionRequest as _nova_v1_AppendSessionRequest, AppendSessionRequest__Output as _nova_v1_AppendSessionRequest__Output } from '../../nova/v1/AppendSessionRequest';
import type { AppendSessionResponse as _nova_v1_AppendSessionResponse, AppendSessionResponse__Output as _nova_v1_AppendSessionResponse__Output } from '../../nova/v1/AppendSessionResponse';
import type { CheckTailRequest as _nova_v1_CheckTailRequest, CheckTailRequest__Output as _nova_v1_CheckTailRequest__Output } from '../../nova/v1/CheckTailRequest';
import type { CheckTailResponse as _nova_v1_CheckTailResponse, CheckTailResponse__Output as _nova_v1_CheckTailResponse__Output } from '../../nova/v1/CheckTailResponse';
import type { CreateBucketRequest as _nova_v1_CreateBucketRequest, CreateBucketRequest__Output as _nova_v1_CreateBucketRequest__Output } from '../../nova/v1/CreateBucketRequest';
import type { CreateBucketResponse as _nova_v1_CreateBucketResponse, CreateBucketResponse__Output as _nova_v1_CreateBucketResponse__Output } from '../../nova/v1/CreateBucketResponse';
import type { CreateStreamRequest as _nova_v1_CreateStreamRequest, CreateStreamRequest__Output as _nova_v1_CreateStreamRequest__Output } from '../../nova/v1/CreateStreamRequest';
import type { CreateStreamResponse as _nova_v1_CreateStreamResponse, CreateStreamResponse__Output as _nova_v1_CreateStreamResponse__Output } from '../../nova/v1/CreateStreamResponse';
import type { DeleteBucketRequest as _nova_v1_DeleteBucketRequest, DeleteBucketRequest__Output as _nova_v1_DeleteBucketRequest__Output } from '../../nova/v1/DeleteBucketRequest';
import type { DeleteBucketResponse as _nova_v1_DeleteBucketResponse, DeleteBucketResponse__Output as _nova_v1_DeleteBucketResponse__Output } from '../../nova/v1/DeleteBucketResponse';
import type { DeleteStreamRequest as _nova_v1_DeleteStreamRequest, DeleteStreamRequest__Output as _nova_v1_DeleteStreamRequest__Output } from '../../nova/v1/DeleteStreamRequest';
import type { DeleteStreamResponse as _nova_v1_DeleteStreamResponse, DeleteStreamResponse__Output as _nova_v1_DeleteStreamResponse__Output } from '../../nova/v1/DeleteStreamResponse';
import type { ExchangeTokenRequest as _nova_v1_ExchangeTokenRequest, ExchangeTokenRequest__Output as _nova_v1_ExchangeTokenRequest__Output } from '../../nova/v1/ExchangeTokenRequest';
import type { ExchangeTokenResponse as _nova_v1_ExchangeTokenResponse, ExchangeTokenResponse__Output as _nova_v1_ExchangeTokenResponse__Output } from '../../nova/v1/ExchangeTokenResponse';
import type { FenceRequest as _nova_v1_FenceRequest, FenceRequest__Output as _nova_v1_FenceRequest__Output } from '../../nova/v1/FenceRequest';
import type { FenceResponse as _nova_v1_FenceResponse, FenceResponse__Output as _nova_v1_FenceResponse__Output } from '../../nova/v1/FenceResponse';
import type { GetBucketRequest as _nova_v1_GetBucketRequest, GetBucketRequest__Output as _nova_v1_GetBucketRequest__Output } from '../../nova/v1/GetBucketRequest';
import type { GetBucketResponse as _nova_v1_GetBucketResponse, GetBucketResponse__Output as _nova_v1_GetBucketResponse__Output } from '../../nova/v1/GetBucketResponse';
import type { GetStreamRequest as _nova_v1_GetStreamRequest, GetStreamRequest__Output as _nova_v1_GetStreamRequest__Output } from '../../nova/v1/GetStreamRequest';
import type { GetStreamResponse as _nova_v1_GetStreamResponse, GetStreamResponse__Output as _nova_v1_GetStreamResponse__Output } from '../../nova/v1/GetStreamResponse';
import type { ListBucketsRequest as _nova_v1_ListBucketsRequest, ListBucketsRequest__Output as _nova_v1_ListBucketsRequest__Output } from '../../nova/v1/ListBucketsRequest';
import type { ListBucketsResponse as _nova_v1_ListBucketsResponse, ListBucketsResponse__Output as _nova_v1_ListBucketsResponse__Output } from '../../nova/v1/ListBucketsResponse';
import type { ListStreamsRequest as _nova_v1_ListStreamsRequest, ListStreamsRequest__Output as _nova_v1_ListStreamsRequest__Output } from '../../nova/v1/ListStreamsRequest';
import type { ListStreamsResponse as _nova_v1_ListStreamsResponse, ListStreamsResponse__Output as _nova_v1_ListStreamsResponse__Output } from '../../nova/v1/ListStreamsResponse';
import type { ReadPlanRequest as _nova_v1_ReadPlanRequest, ReadPlanRequest__Output as _nova_v1_ReadPlanRequest__Output } from '../../nova/v1/ReadPlanRequest';
import type { ReadPlanResponse as _nova_v1_ReadPlanResponse, ReadPlanResponse__Output as _nova_v1_ReadPlanResponse__Output } from '../../nova/v1/ReadPlanResponse';
import type { ReadRequest as _nova_v1_ReadRequest, ReadRequest__Output as _nova_v1_ReadRequest__Output } from '../../nova/v1/ReadRequest';
import type { ReadResponse as _nova_v1_ReadResponse, ReadResponse__Output as _nova_v1_ReadResponse__Output } from '../../nova/v1/ReadResponse';
import type { ReconfigureBucketRequest as _nova_v1_ReconfigureBucketRequest, ReconfigureBucketRequest__Output as _nova_v1_ReconfigureBucketRequest__Output } from '../../nova/v1/ReconfigureBucketRequest';
import type { ReconfigureBucketResponse as _nova_v1_ReconfigureBucketResponse, ReconfigureBucketResponse__Output as _nova_v1_ReconfigureBucketResponse__Output } from '../../nova/v1/ReconfigureBucketResponse';
import type { ReconfigureStreamRequest as _nova_v1_ReconfigureStreamRequest, ReconfigureStreamRequest__Output as _nova_v1_ReconfigureStreamRequest__Output } from '../../nova/v1/ReconfigureStreamRequest';
import type { ReconfigureStreamResponse as _nova_v1_ReconfigureStreamResponse, ReconfigureStreamResponse__Output as _nova_v1_ReconfigureStreamResponse__Output } from '../../nova/v1/ReconfigureStreamResponse';
import type { SubscribeRequest as _nova_v1_SubscribeRequest, SubscribeRequest__Output as _nova_v1_SubscribeRequest__Output } from '../../nova/v1/SubscribeRequest';
import type { SubscribeResponse as _nova_v1_SubscribeResponse, SubscribeResponse__Output as _nova_v1_SubscribeResponse__Output } from '../../nova/v1/SubscribeResponse';
import type { TrimRequest as _nova_v1_TrimRequest, TrimRequest__Output as _nova_v1_TrimRequest__Output } from '../../nova/v1/TrimRequest';
import type { TrimResponse as _nova_v1_TrimResponse, TrimResponse__Output as _nova_v1_TrimResponse__Output } from '../../nova/v1/TrimResponse';

export interface DataPlaneServiceClient extends grpc.Client {
  Append(argument: _nova_v1_AppendRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_AppendResponse__Output>): grpc.ClientUnaryCall;
  Append(argument: _nova_v1_AppendRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_nova_v1_AppendResponse__Output>): grpc.ClientUnaryCall;
  Append(argument: _nova_v1_AppendRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_AppendResponse__Output>): grpc.ClientUnaryCall;
  Append(argument: _nova_v1_AppendRequest, callback: grpc.requestCallback<_nova_v1_AppendResponse__Output>): grpc.ClientUnaryCall;
  append(argument: _nova_v1_AppendRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_AppendResponse__Output>): grpc.ClientUnaryCall;
  append(argument: _nova_v1_AppendRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_nova_v1_AppendResponse__Output>): grpc.ClientUnaryCall;
  append(argument: _nova_v1_AppendRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_AppendResponse__Output>): grpc.ClientUnaryCall;
  append(argument: _nova_v1_AppendRequest, callback: grpc.requestCallback<_nova_v1_AppendResponse__Output>): grpc.ClientUnaryCall;
  
  AppendSession(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_nova_v1_AppendSessionRequest, _nova_v1_AppendSessionResponse__Output>;
  AppendSession(options?: grpc.CallOptions): grpc.ClientDuplexStream<_nova_v1_AppendSessionRequest, _nova_v1_AppendSessionResponse__Output>;
  appendSession(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_nova_v1_AppendSessionRequest, _nova_v1_AppendSessionResponse__Output>;
  appendSession(options?: grpc.CallOptions): grpc.ClientDuplexStream<_nova_v1_AppendSessionRequest, _nova_v1_AppendSessionResponse__Output>;
  
  CheckTail(argument: _nova_v1_CheckTailRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_CheckTailResponse__Output>): grpc.ClientUnaryCall;
  CheckTail(argument: _nova_v1_CheckTailRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_nova_v1_CheckTailResponse__Output>): grpc.ClientUnaryCall;
  CheckTail(argument: _nova_v1_CheckTailRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_CheckTailResponse__Output>): grpc.ClientUnaryCall;
  CheckTail(argument: _nova_v1_CheckTailRequest, callback: grpc.requestCallback<_nova_v1_CheckTailResponse__Output>): grpc.ClientUnaryCall;
  checkTail(argument: _nova_v1_CheckTailRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_CheckTailResponse__Output>): grpc.ClientUnaryCall;
  checkTail(argument: _nova_v1_CheckTailRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_nova_v1_CheckTailResponse__Output>): grpc.ClientUnaryCall;
  checkTail(argument: _nova_v1_CheckTailRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_CheckTailResponse__Output>): grpc.ClientUnaryCall;
  checkTail(argument: _nova_v1_CheckTailRequest, callback: grpc.requestCallback<_nova_v1_CheckTailResponse__Output>): grpc.ClientUnaryCall;
  
  CreateBucket(argument: _nova_v1_CreateBucketRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_CreateBucketResponse__Output>): grpc.ClientUnaryCall;
  CreateBucket(argument: _nova_v1_CreateBucketRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_nova_v1_CreateBucketResponse__Output>): grpc.ClientUnaryCall;
  CreateBucket(argument: _nova_v1_CreateBucketRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_CreateBucketResponse__Output>): grpc.ClientUnaryCall;
  CreateBucket(argument: _nova_v1_CreateBucketRequest, callback: grpc.requestCallback<_nova_v1_CreateBucketResponse__Output>): grpc.ClientUnaryCall;
  createBucket(argument: _nova_v1_CreateBucketRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_CreateBucketResponse__Output>): grpc.ClientUnaryCall;
  createBucket(argument: _nova_v1_CreateBucketRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_nova_v1_CreateBucketResponse__Output>): grpc.ClientUnaryCall;
  createBucket(argument: _nova_v1_CreateBucketRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_CreateBucketResponse__Output>): grpc.ClientUnaryCall;
  createBucket(argument: _nova_v1_CreateBucketRequest, callback: grpc.requestCallback<_nova_v1_CreateBucketResponse__Output>): grpc.ClientUnaryCall;
  
  CreateStream(argument: _nova_v1_CreateStreamRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_CreateStreamResponse__Output>): grpc.ClientUnaryCall;
  CreateStream(argument: _nova_v1_CreateStreamRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_nova_v1_CreateStreamResponse__Output>): grpc.ClientUnaryCall;
  CreateStream(argument: _nova_v1_CreateStreamRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_CreateStreamResponse__Output>): grpc.ClientUnaryCall;
  CreateStream(argument: _nova_v1_CreateStreamRequest, callback: grpc.requestCallback<_nova_v1_CreateStreamResponse__Output>): grpc.ClientUnaryCall;
  createStream(argument: _nova_v1_CreateStreamRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_CreateStreamResponse__Output>): grpc.ClientUnaryCall;
  createStream(argument: _nova_v1_CreateStreamRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_nova_v1_CreateStreamResponse__Output>): grpc.ClientUnaryCall;
  createStream(argument: _nova_v1_CreateStreamRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_CreateStreamResponse__Output>): grpc.ClientUnaryCall;
  createStream(argument: _nova_v1_CreateStreamRequest, callback: grpc.requestCallback<_nova_v1_CreateStreamResponse__Output>): grpc.ClientUnaryCall;
  
  DeleteBucket(argument: _nova_v1_DeleteBucketRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_DeleteBucketResponse__Output>): grpc.ClientUnaryCall;
  DeleteBucket(argument: _nova_v1_DeleteBucketRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_nova_v1_DeleteBucketResponse__Output>): grpc.ClientUnaryCall;
  DeleteBucket(argument: _nova_v1_DeleteBucketRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_DeleteBucketResponse__Output>): grpc.ClientUnaryCall;
  DeleteBucket(argument: _nova_v1_DeleteBucketRequest, callback: grpc.requestCallback<_nova_v1_DeleteBucketResponse__Output>): grpc.ClientUnaryCall;
  deleteBucket(argument: _nova_v1_DeleteBucketRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_DeleteBucketResponse__Output>): grpc.ClientUnaryCall;
  deleteBucket(argument: _nova_v1_DeleteBucketRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_nova_v1_DeleteBucketResponse__Output>): grpc.ClientUnaryCall;
  deleteBucket(argument: _nova_v1_DeleteBucketRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_DeleteBucketResponse__Output>): grpc.ClientUnaryCall;
  deleteBucket(argument: _nova_v1_DeleteBucketRequest, callback: grpc.requestCallback<_nova_v1_DeleteBucketResponse__Output>): grpc.ClientUnaryCall;
  
  DeleteStream(argument: _nova_v1_DeleteStreamRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_DeleteStreamResponse__Output>): grpc.ClientUnaryCall;
  DeleteStream(argument: _nova_v1_DeleteStreamRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_nova_v1_DeleteStreamResponse__Output>): grpc.ClientUnaryCall;
  DeleteStream(argument: _nova_v1_DeleteStreamRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_DeleteStreamResponse__Output>): grpc.ClientUnaryCall;
  DeleteStream(argument: _nova_v1_DeleteStreamRequest, callback: grpc.requestCallback<_nova_v1_DeleteStreamResponse__Output>): grpc.ClientUnaryCall;
  deleteStream(argument: _nova_v1_DeleteStreamRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_DeleteStreamResponse__Output>): grpc.ClientUnaryCall;
  deleteStream(argument: _nova_v1_DeleteStreamRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_nova_v1_DeleteStreamResponse__Output>): grpc.ClientUnaryCall;
  deleteStream(argument: _nova_v1_DeleteStreamRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_DeleteStreamResponse__Output>): grpc.ClientUnaryCall;
  deleteStream(argument: _nova_v1_DeleteStreamRequest, callback: grpc.requestCallback<_nova_v1_DeleteStreamResponse__Output>): grpc.ClientUnaryCall;
  
  ExchangeToken(argument: _nova_v1_ExchangeTokenRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_ExchangeTokenResponse__Output>): grpc.ClientUnaryCall;
  ExchangeToken(argument: _nova_v1_ExchangeTokenRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_nova_v1_ExchangeTokenResponse__Output>): grpc.ClientUnaryCall;
  ExchangeToken(argument: _nova_v1_ExchangeTokenRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_ExchangeTokenResponse__Output>): grpc.ClientUnaryCall;
  ExchangeToken(argument: _nova_v1_ExchangeTokenRequest, callback: grpc.requestCallback<_nova_v1_ExchangeTokenResponse__Output>): grpc.ClientUnaryCall;
  exchangeToken(argument: _nova_v1_ExchangeTokenRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_ExchangeTokenResponse__Output>): grpc.ClientUnaryCall;
  exchangeToken(argument: _nova_v1_ExchangeTokenRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_nova_v1_ExchangeTokenResponse__Output>): grpc.ClientUnaryCall;
  exchangeToken(argument: _nova_v1_ExchangeTokenRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_ExchangeTokenResponse__Output>): grpc.ClientUnaryCall;
  exchangeToken(argument: _nova_v1_ExchangeTokenRequest, callback: grpc.requestCallback<_nova_v1_ExchangeTokenResponse__Output>): grpc.ClientUnaryCall;
  
  Fence(argument: _nova_v1_FenceRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_FenceResponse__Output>): grpc.ClientUnaryCall;
  Fence(argument: _nova_v1_FenceRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_nova_v1_FenceResponse__Output>): grpc.ClientUnaryCall;
  Fence(argument: _nova_v1_FenceRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_FenceResponse__Output>): grpc.ClientUnaryCall;
  Fence(argument: _nova_v1_FenceRequest, callback: grpc.requestCallback<_nova_v1_FenceResponse__Output>): grpc.ClientUnaryCall;
  fence(argument: _nova_v1_FenceRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_FenceResponse__Output>): grpc.ClientUnaryCall;
  fence(argument: _nova_v1_FenceRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_nova_v1_FenceResponse__Output>): grpc.ClientUnaryCall;
  fence(argument: _nova_v1_FenceRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_FenceResponse__Output>): grpc.ClientUnaryCall;
  fence(argument: _nova_v1_FenceRequest, callback: grpc.requestCallback<_nova_v1_FenceResponse__Output>): grpc.ClientUnaryCall;
  
  GetBucket(argument: _nova_v1_GetBucketRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_GetBucketResponse__Output>): grpc.ClientUnaryCall;
  GetBucket(argument: _nova_v1_GetBucketRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_nova_v1_GetBucketResponse__Output>): grpc.ClientUnaryCall;
  GetBucket(argument: _nova_v1_GetBucketRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_GetBucketResponse__Output>): grpc.ClientUnaryCall;
  GetBucket(argument: _nova_v1_GetBucketRequest, callback: grpc.requestCallback<_nova_v1_GetBucketResponse__Output>): grpc.ClientUnaryCall;
  getBucket(argument: _nova_v1_GetBucketRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_GetBucketResponse__Output>): grpc.ClientUnaryCall;
  getBucket(argument: _nova_v1_GetBucketRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_nova_v1_GetBucketResponse__Output>): grpc.ClientUnaryCall;
  getBucket(argument: _nova_v1_GetBucketRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_GetBucketResponse__Output>): grpc.ClientUnaryCall;
  getBucket(argument: _nova_v1_GetBucketRequest, callback: grpc.requestCallback<_nova_v1_GetBucketResponse__Output>): grpc.ClientUnaryCall;
  
  GetStream(argument: _nova_v1_GetStreamRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_GetStreamResponse__Output>): grpc.ClientUnaryCall;
  GetStream(argument: _nova_v1_GetStreamRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_nova_v1_GetStreamResponse__Output>): grpc.ClientUnaryCall;
  GetStream(argument: _nova_v1_GetStreamRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_GetStreamResponse__Output>): grpc.ClientUnaryCall;
  GetStream(argument: _nova_v1_GetStreamRequest, callback: grpc.requestCallback<_nova_v1_GetStreamResponse__Output>): grpc.ClientUnaryCall;
  getStream(argument: _nova_v1_GetStreamRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_GetStreamResponse__Output>): grpc.ClientUnaryCall;
  getStream(argument: _nova_v1_GetStreamRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_nova_v1_GetStreamResponse__Output>): grpc.ClientUnaryCall;
  getStream(argument: _nova_v1_GetStreamRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_GetStreamResponse__Output>): grpc.ClientUnaryCall;
  getStream(argument: _nova_v1_GetStreamRequest, callback: grpc.requestCallback<_nova_v1_GetStreamResponse__Output>): grpc.ClientUnaryCall;
  
  ListBuckets(argument: _nova_v1_ListBucketsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_ListBucketsResponse__Output>): grpc.ClientUnaryCall;
  ListBuckets(argument: _nova_v1_ListBucketsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_nova_v1_ListBucketsResponse__Output>): grpc.ClientUnaryCall;
  ListBuckets(argument: _nova_v1_ListBucketsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_ListBucketsResponse__Output>): grpc.ClientUnaryCall;
  ListBuckets(argument: _nova_v1_ListBucketsRequest, callback: grpc.requestCallback<_nova_v1_ListBucketsResponse__Output>): grpc.ClientUnaryCall;
  listBuckets(argument: _nova_v1_ListBucketsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_ListBucketsResponse__Output>): grpc.ClientUnaryCall;
  listBuckets(argument: _nova_v1_ListBucketsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_nova_v1_ListBucketsResponse__Output>): grpc.ClientUnaryCall;
  listBuckets(argument: _nova_v1_ListBucketsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_ListBucketsResponse__Output>): grpc.ClientUnaryCall;
  listBuckets(argument: _nova_v1_ListBucketsRequest, callback: grpc.requestCallback<_nova_v1_ListBucketsResponse__Output>): grpc.ClientUnaryCall;
  
  ListStreams(argument: _nova_v1_ListStreamsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_ListStreamsResponse__Output>): grpc.ClientUnaryCall;
  ListStreams(argument: _nova_v1_ListStreamsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_nova_v1_ListStreamsResponse__Output>): grpc.ClientUnaryCall;
  ListStreams(argument: _nova_v1_ListStreamsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_ListStreamsResponse__Output>): grpc.ClientUnaryCall;
  ListStreams(argument: _nova_v1_ListStreamsRequest, callback: grpc.requestCallback<_nova_v1_ListStreamsResponse__Output>): grpc.ClientUnaryCall;
  listStreams(argument: _nova_v1_ListStreamsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_ListStreamsResponse__Output>): grpc.ClientUnaryCall;
  listStreams(argument: _nova_v1_ListStreamsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_nova_v1_ListStreamsResponse__Output>): grpc.ClientUnaryCall;
  listStreams(argument: _nova_v1_ListStreamsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_ListStreamsResponse__Output>): grpc.ClientUnaryCall;
  listStreams(argument: _nova_v1_ListStreamsRequest, callback: grpc.requestCallback<_nova_v1_ListStreamsResponse__Output>): grpc.ClientUnaryCall;
  
  Read(argument: _nova_v1_ReadRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_ReadResponse__Output>): grpc.ClientUnaryCall;
  Read(argument: _nova_v1_ReadRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_nova_v1_ReadResponse__Output>): grpc.ClientUnaryCall;
  Read(argument: _nova_v1_ReadRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_ReadResponse__Output>): grpc.ClientUnaryCall;
  Read(argument: _nova_v1_ReadRequest, callback: grpc.requestCallback<_nova_v1_ReadResponse__Output>): grpc.ClientUnaryCall;
  read(argument: _nova_v1_ReadRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_ReadResponse__Output>): grpc.ClientUnaryCall;
  read(argument: _nova_v1_ReadRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_nova_v1_ReadResponse__Output>): grpc.ClientUnaryCall;
  read(argument: _nova_v1_ReadRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_ReadResponse__Output>): grpc.ClientUnaryCall;
  read(argument: _nova_v1_ReadRequest, callback: grpc.requestCallback<_nova_v1_ReadResponse__Output>): grpc.ClientUnaryCall;
  
  ReadPlan(argument: _nova_v1_ReadPlanRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_ReadPlanResponse__Output>): grpc.ClientUnaryCall;
  ReadPlan(argument: _nova_v1_ReadPlanRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_nova_v1_ReadPlanResponse__Output>): grpc.ClientUnaryCall;
  ReadPlan(argument: _nova_v1_ReadPlanRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_ReadPlanResponse__Output>): grpc.ClientUnaryCall;
  ReadPlan(argument: _nova_v1_ReadPlanRequest, callback: grpc.requestCallback<_nova_v1_ReadPlanResponse__Output>): grpc.ClientUnaryCall;
  readPlan(argument: _nova_v1_ReadPlanRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_ReadPlanResponse__Output>): grpc.ClientUnaryCall;
  readPlan(argument: _nova_v1_ReadPlanRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_nova_v1_ReadPlanResponse__Output>): grpc.ClientUnaryCall;
  readPlan(argument: _nova_v1_ReadPlanRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_ReadPlanResponse__Output>): grpc.ClientUnaryCall;
  readPlan(argument: _nova_v1_ReadPlanRequest, callback: grpc.requestCallback<_nova_v1_ReadPlanResponse__Output>): grpc.ClientUnaryCall;
  
  ReconfigureBucket(argument: _nova_v1_ReconfigureBucketRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_ReconfigureBucketResponse__Output>): grpc.ClientUnaryCall;
  ReconfigureBucket(argument: _nova_v1_ReconfigureBucketRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_nova_v1_ReconfigureBucketResponse__Output>): grpc.ClientUnaryCall;
  ReconfigureBucket(argument: _nova_v1_ReconfigureBucketRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_ReconfigureBucketResponse__Output>): grpc.ClientUnaryCall;
  ReconfigureBucket(argument: _nova_v1_ReconfigureBucketRequest, callback: grpc.requestCallback<_nova_v1_ReconfigureBucketResponse__Output>): grpc.ClientUnaryCall;
  reconfigureBucket(argument: _nova_v1_ReconfigureBucketRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_ReconfigureBucketResponse__Output>): grpc.ClientUnaryCall;
  reconfigureBucket(argument: _nova_v1_ReconfigureBucketRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_nova_v1_ReconfigureBucketResponse__Output>): grpc.ClientUnaryCall;
  reconfigureBucket(argument: _nova_v1_ReconfigureBucketRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_ReconfigureBucketResponse__Output>): grpc.ClientUnaryCall;
  reconfigureBucket(argument: _nova_v1_ReconfigureBucketRequest, callback: grpc.requestCallback<_nova_v1_ReconfigureBucketResponse__Output>): grpc.ClientUnaryCall;
  
  ReconfigureStream(argument: _nova_v1_ReconfigureStreamRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_ReconfigureStreamResponse__Output>): grpc.ClientUnaryCall;
  ReconfigureStream(argument: _nova_v1_ReconfigureStreamRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_nova_v1_ReconfigureStreamResponse__Output>): grpc.ClientUnaryCall;
  ReconfigureStream(argument: _nova_v1_ReconfigureStreamRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_ReconfigureStreamResponse__Output>): grpc.ClientUnaryCall;
  ReconfigureStream(argument: _nova_v1_ReconfigureStreamRequest, callback: grpc.requestCallback<_nova_v1_ReconfigureStreamResponse__Output>): grpc.ClientUnaryCall;
  reconfigureStream(argument: _nova_v1_ReconfigureStreamRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_ReconfigureStreamResponse__Output>): grpc.ClientUnaryCall;
  reconfigureStream(argument: _nova_v1_ReconfigureStreamRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_nova_v1_ReconfigureStreamResponse__Output>): grpc.ClientUnaryCall;
  reconfigureStream(argument: _nova_v1_ReconfigureStreamRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_ReconfigureStreamResponse__Output>): grpc.ClientUnaryCall;
  reconfigureStream(argument: _nova_v1_ReconfigureStreamRequest, callback: grpc.requestCallback<_nova_v1_ReconfigureStreamResponse__Output>): grpc.ClientUnaryCall;
  
  Subscribe(argument: _nova_v1_SubscribeRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_nova_v1_SubscribeResponse__Output>;
  Subscribe(argument: _nova_v1_SubscribeRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_nova_v1_SubscribeResponse__Output>;
  subscribe(argument: _nova_v1_SubscribeRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_nova_v1_SubscribeResponse__Output>;
  subscribe(argument: _nova_v1_SubscribeRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_nova_v1_SubscribeResponse__Output>;
  
  Trim(argument: _nova_v1_TrimRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_TrimResponse__Output>): grpc.ClientUnaryCall;
  Trim(argument: _nova_v1_TrimRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_nova_v1_TrimResponse__Output>): grpc.ClientUnaryCall;
  Trim(argument: _nova_v1_TrimRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_TrimResponse__Output>): grpc.ClientUnaryCall;
  Trim(argument: _nova_v1_TrimRequest, callback: grpc.requestCallback<_nova_v1_TrimResponse__Output>): grpc.ClientUnaryCall;
  trim(argument: _nova_v1_TrimRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_TrimResponse__Output>): grpc.ClientUnaryCall;
  trim(argument: _nova_v1_TrimRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_nova_v1_TrimResponse__Output>): grpc.ClientUnaryCall;
  trim(argument: _nova_v1_TrimRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_nova_v1_TrimResponse__Output>): grpc.ClientUnaryCall;
  trim(argument: _nova_v1_TrimRequest, callback: grpc.requestCallback<_nova_v1_TrimResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface DataPlaneServiceHandlers extends grpc.UntypedServiceImplementation {
  Append: grpc.handleUnaryCall<_nova_v1_AppendRequest__Output, _nova_v1_AppendResponse>;
  
  AppendSession: grpc.handleBidiStreamingCall<_nova_v1_AppendSessionRequest__Output, _nova_v1_AppendSessionResponse>;
  
  CheckTail: grpc.handleUnaryCall<_nova_v1_CheckTailRequest__Output, _nova_v1_CheckTailResponse>;
  
  CreateBucket: grpc.handleUnaryCall<_nova_v1_CreateBucketRequest__Output, _nova_v1_CreateBucketResponse>;
  
  CreateStream: grpc.handleUnaryCall<_nova_v1_CreateStreamRequest__Output, _nova_v1_CreateStreamResponse>;
  
  DeleteBucket: grpc.handleUnaryCall<_nova_v1_DeleteBucketRequest__Output, _nova_v1_DeleteBucketResponse>;
  
  DeleteStream: grpc.handleUnaryCall<_nova_v1_DeleteStreamRequest__Output, _nova_v1_DeleteStreamResponse>;
  
  ExchangeToken: grpc.handleUnaryCall<_nova_v1_ExchangeTokenRequest__Output, _nova_v1_ExchangeTokenResponse>;
  
  Fence: grpc.handleUnaryCall<_nova_v1_FenceRequest__Output, _nova_v1_FenceResponse>;
  
  GetBucket: grpc.handleUnaryCall<_nova_v1_GetBucketRequest__Output, _nova_v1_GetBucketResponse>;
  
  GetStream: grpc.handleUnaryCall<_nova_v1_GetStreamRequest__Output, _nova_v1_GetStreamResponse>;
  
  ListBuckets: grpc.handleUnaryCall<_nova_v1_ListBucketsRequest__Output, _nova_v1_ListBucketsResponse>;
  
  ListStreams: grpc.handleUnaryCall<_nova_v1_ListStreamsRequest__Output, _nova_v1_ListStreamsResponse>;
  
  Read: grpc.handleUnaryCall<_nova_v1_ReadRequest__Output, _nova_v1_ReadResponse>;
  
  ReadPlan: grpc.handleUnaryCall<_nova_v1_ReadPlanRequest__Output, _nova_v1_ReadPlanResponse>;
  
  ReconfigureBucket: grpc.handleUnaryCall<_nova_v1_ReconfigureBucketRequest__Output, _nova_v1_ReconfigureBucketResponse>;
  
  ReconfigureStream: grpc.handleUnaryCall<_nova_v1_ReconfigureStreamRequest__Output, _nova_v1_ReconfigureStreamResponse>;
  
  Subscribe: grpc.handleServerStreamingCall<_nova_v1_SubscribeRequest__Output, _nova_v1_SubscribeResponse>;
  
  Trim: grpc.handleUnaryCall<_nova_v1_TrimRequest__Output, _nova_v1_TrimResponse>;
  
}

export interface DataPlaneServiceDefinition extends grpc.ServiceDefinition {
  Append: MethodDefinition<_nova_v1_AppendRequest, _nova_v1_AppendResponse, _nova_v1_AppendRequest__Output, _nova_v1_AppendResponse__Output>
  AppendSession: MethodDefinition<_nova_v1_AppendSessionRequest, _nova_v1_AppendSessionResponse, _nova_v1_AppendSessionRequest__Output, _nova_v1_AppendSessionResponse__Output>
  CheckTail: MethodDefinition<_nova_v1_CheckTailRequest, _nova_v1_CheckTailResponse, _nova_v1_CheckTailRequest__Output, _nova_v1_CheckTailResponse__Output>
  CreateBucket: MethodDefinition<_nova_v1_CreateBucketRequest, _nova_v1_CreateBucketResponse, _nova_v1_CreateBucketRequest__Output, _nova_v1_CreateBucketResponse__Output>
  CreateStream: MethodDefinition<_nova_v1_CreateStreamRequest, _nova_v1_CreateStreamResponse, _nova_v1_CreateStreamRequest__Output, _nova_v1_CreateStreamResponse__Output>
  DeleteBucket: MethodDefinition<_nova_v1_DeleteBucketRequest, _nova_v1_DeleteBucketResponse, _nova_v1_DeleteBucketRequest__Output, _nova_v1_DeleteBucketResponse__Output>
  DeleteStream: MethodDefinition<_nova_v1_DeleteStreamRequest, _nova_v1_DeleteStreamResponse, _nova_v1_DeleteStreamRequest__Output, _nova_v1_DeleteStreamResponse__Output>
  ExchangeToken: MethodDefinition<_nova_v1_ExchangeTokenRequest, _nova_v1_ExchangeTokenResponse, _nova_v1_ExchangeTokenRequest__Output, _nova_v1_ExchangeTokenResponse__Output>
  Fence: MethodDefinition<_nova_v1_FenceRequest, _nova_v1_FenceResponse, _nova_v1_FenceRequest__Output, _nova_v1_FenceResponse__Output>
  GetBucket: MethodDefinition<_nova_v1_GetBucketRequest, _nova_v1_GetBucketResponse, _nova_v1_GetBucketRequest__Output, _nova_v1_GetBucketResponse__Output>
  GetStream: MethodDefinition<_nova_v1_GetStreamRequest, _nova_v1_GetStreamResponse, _nova_v1_GetStreamRequest__Output, _nova_v1_GetStreamResponse__Output>
  ListBuckets: MethodDefinition<_nova_v1_ListBucketsRequest, _nova_v1_ListBucketsResponse, _nova_v1_ListBucketsRequest__Output, _nova_v1_ListBucketsResponse__Output>
  ListStreams: MethodDefinition<_nova_v1_ListStreamsRequest, _nova_v1_ListStreamsResponse, _nova_v1_ListStreamsRequest__Output, _nova_v1_ListStreamsResponse__Output>
  Read: MethodDefinition<_nova_v1_ReadRequest, _nova_v1_ReadResponse, _nova_v1_ReadRequest__Output, _nova_v1_ReadResponse__Output>
  ReadPlan: MethodDefinition<_nova_v1_ReadPlanRequest, _nova_v1_ReadPlanResponse, _nova_v1_ReadPlanRequest__Output, _nova_v1_ReadPlanResponse__Output>
  ReconfigureBucket: MethodDefinition<_nova_v1_ReconfigureBucketRequest, _nova_v1_ReconfigureBucketResponse, _nova_v1_ReconfigureBucketRequest__Output, _nova_v1_ReconfigureBucketResponse__Output>
  ReconfigureStream: MethodDefinition<_nova_v1_ReconfigureStreamRequest, _nova_v1_ReconfigureStreamResponse, _nova_v1_ReconfigureStreamRequest__Output, _nova_v1_ReconfigureStreamResponse__Output>
  Subscribe: MethodDefinition<_nova_v1_SubscribeRequest, _nova_v1_SubscribeResponse, _nova_v1_SubscribeRequest__Output, _nova_v1_SubscribeResponse__Output>
  Trim: MethodDefinition<_nova_v1_TrimRequest, _nova_v1_TrimResponse, _nova_v1_TrimRequest__Output, _nova_v1_TrimResponse__Output>
}
