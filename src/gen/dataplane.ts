import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { AppendRecord as _nova_v1_AppendRecord, AppendRecord__Output as _nova_v1_AppendRecord__Output } from './nova/v1/AppendRecord';
import type { AppendRequest as _nova_v1_AppendRequest, AppendRequest__Output as _nova_v1_AppendRequest__Output } from './nova/v1/AppendRequest';
import type { AppendResponse as _nova_v1_AppendResponse, AppendResponse__Output as _nova_v1_AppendResponse__Output } from './nova/v1/AppendResponse';
import type { AppendSessionAck as _nova_v1_AppendSessionAck, AppendSessionAck__Output as _nova_v1_AppendSessionAck__Output } from './nova/v1/AppendSessionAck';
import type { AppendSessionBatch as _nova_v1_AppendSessionBatch, AppendSessionBatch__Output as _nova_v1_AppendSessionBatch__Output } from './nova/v1/AppendSessionBatch';
import type { AppendSessionOpen as _nova_v1_AppendSessionOpen, AppendSessionOpen__Output as _nova_v1_AppendSessionOpen__Output } from './nova/v1/AppendSessionOpen';
import type { AppendSessionOpened as _nova_v1_AppendSessionOpened, AppendSessionOpened__Output as _nova_v1_AppendSessionOpened__Output } from './nova/v1/AppendSessionOpened';
import type { AppendSessionRequest as _nova_v1_AppendSessionRequest, AppendSessionRequest__Output as _nova_v1_AppendSessionRequest__Output } from './nova/v1/AppendSessionRequest';
import type { AppendSessionResponse as _nova_v1_AppendSessionResponse, AppendSessionResponse__Output as _nova_v1_AppendSessionResponse__Output } from './nova/v1/AppendSessionResponse';
import type { BatchTooLarge as _nova_v1_BatchTooLarge, BatchTooLarge__Output as _nova_v1_BatchTooLarge__Output } from './nova/v1/BatchTooLarge';
import type { Bucket as _nova_v1_Bucket, Bucket__Output as _nova_v1_Bucket__Output } from './nova/v1/Bucket';
import type { BucketConfig as _nova_v1_BucketConfig, BucketConfig__Output as _nova_v1_BucketConfig__Output } from './nova/v1/BucketConfig';
import type { CheckTailRequest as _nova_v1_CheckTailRequest, CheckTailRequest__Output as _nova_v1_CheckTailRequest__Output } from './nova/v1/CheckTailRequest';
import type { CheckTailResponse as _nova_v1_CheckTailResponse, CheckTailResponse__Output as _nova_v1_CheckTailResponse__Output } from './nova/v1/CheckTailResponse';
import type { ContentTypeMismatch as _nova_v1_ContentTypeMismatch, ContentTypeMismatch__Output as _nova_v1_ContentTypeMismatch__Output } from './nova/v1/ContentTypeMismatch';
import type { CreateBucketRequest as _nova_v1_CreateBucketRequest, CreateBucketRequest__Output as _nova_v1_CreateBucketRequest__Output } from './nova/v1/CreateBucketRequest';
import type { CreateBucketResponse as _nova_v1_CreateBucketResponse, CreateBucketResponse__Output as _nova_v1_CreateBucketResponse__Output } from './nova/v1/CreateBucketResponse';
import type { CreateStreamRequest as _nova_v1_CreateStreamRequest, CreateStreamRequest__Output as _nova_v1_CreateStreamRequest__Output } from './nova/v1/CreateStreamRequest';
import type { CreateStreamResponse as _nova_v1_CreateStreamResponse, CreateStreamResponse__Output as _nova_v1_CreateStreamResponse__Output } from './nova/v1/CreateStreamResponse';
import type { DataPlaneServiceClient as _nova_v1_DataPlaneServiceClient, DataPlaneServiceDefinition as _nova_v1_DataPlaneServiceDefinition } from './nova/v1/DataPlaneService';
import type { DeleteBucketRequest as _nova_v1_DeleteBucketRequest, DeleteBucketRequest__Output as _nova_v1_DeleteBucketRequest__Output } from './nova/v1/DeleteBucketRequest';
import type { DeleteBucketResponse as _nova_v1_DeleteBucketResponse, DeleteBucketResponse__Output as _nova_v1_DeleteBucketResponse__Output } from './nova/v1/DeleteBucketResponse';
import type { DeleteStreamRequest as _nova_v1_DeleteStreamRequest, DeleteStreamRequest__Output as _nova_v1_DeleteStreamRequest__Output } from './nova/v1/DeleteStreamRequest';
import type { DeleteStreamResponse as _nova_v1_DeleteStreamResponse, DeleteStreamResponse__Output as _nova_v1_DeleteStreamResponse__Output } from './nova/v1/DeleteStreamResponse';
import type { ExchangeTokenRequest as _nova_v1_ExchangeTokenRequest, ExchangeTokenRequest__Output as _nova_v1_ExchangeTokenRequest__Output } from './nova/v1/ExchangeTokenRequest';
import type { ExchangeTokenResponse as _nova_v1_ExchangeTokenResponse, ExchangeTokenResponse__Output as _nova_v1_ExchangeTokenResponse__Output } from './nova/v1/ExchangeTokenResponse';
import type { FenceRequest as _nova_v1_FenceRequest, FenceRequest__Output as _nova_v1_FenceRequest__Output } from './nova/v1/FenceRequest';
import type { FenceResponse as _nova_v1_FenceResponse, FenceResponse__Output as _nova_v1_FenceResponse__Output } from './nova/v1/FenceResponse';
import type { FencingTokenMismatch as _nova_v1_FencingTokenMismatch, FencingTokenMismatch__Output as _nova_v1_FencingTokenMismatch__Output } from './nova/v1/FencingTokenMismatch';
import type { GetBucketRequest as _nova_v1_GetBucketRequest, GetBucketRequest__Output as _nova_v1_GetBucketRequest__Output } from './nova/v1/GetBucketRequest';
import type { GetBucketResponse as _nova_v1_GetBucketResponse, GetBucketResponse__Output as _nova_v1_GetBucketResponse__Output } from './nova/v1/GetBucketResponse';
import type { GetStreamRequest as _nova_v1_GetStreamRequest, GetStreamRequest__Output as _nova_v1_GetStreamRequest__Output } from './nova/v1/GetStreamRequest';
import type { GetStreamResponse as _nova_v1_GetStreamResponse, GetStreamResponse__Output as _nova_v1_GetStreamResponse__Output } from './nova/v1/GetStreamResponse';
import type { Header as _nova_v1_Header, Header__Output as _nova_v1_Header__Output } from './nova/v1/Header';
import type { ListBucketsRequest as _nova_v1_ListBucketsRequest, ListBucketsRequest__Output as _nova_v1_ListBucketsRequest__Output } from './nova/v1/ListBucketsRequest';
import type { ListBucketsResponse as _nova_v1_ListBucketsResponse, ListBucketsResponse__Output as _nova_v1_ListBucketsResponse__Output } from './nova/v1/ListBucketsResponse';
import type { ListStreamsRequest as _nova_v1_ListStreamsRequest, ListStreamsRequest__Output as _nova_v1_ListStreamsRequest__Output } from './nova/v1/ListStreamsRequest';
import type { ListStreamsResponse as _nova_v1_ListStreamsResponse, ListStreamsResponse__Output as _nova_v1_ListStreamsResponse__Output } from './nova/v1/ListStreamsResponse';
import type { LogDamaged as _nova_v1_LogDamaged, LogDamaged__Output as _nova_v1_LogDamaged__Output } from './nova/v1/LogDamaged';
import type { NotFoundDetail as _nova_v1_NotFoundDetail, NotFoundDetail__Output as _nova_v1_NotFoundDetail__Output } from './nova/v1/NotFoundDetail';
import type { NotOwner as _nova_v1_NotOwner, NotOwner__Output as _nova_v1_NotOwner__Output } from './nova/v1/NotOwner';
import type { ObjectLocation as _nova_v1_ObjectLocation, ObjectLocation__Output as _nova_v1_ObjectLocation__Output } from './nova/v1/ObjectLocation';
import type { Position as _nova_v1_Position, Position__Output as _nova_v1_Position__Output } from './nova/v1/Position';
import type { Producer as _nova_v1_Producer, Producer__Output as _nova_v1_Producer__Output } from './nova/v1/Producer';
import type { ProducerFenced as _nova_v1_ProducerFenced, ProducerFenced__Output as _nova_v1_ProducerFenced__Output } from './nova/v1/ProducerFenced';
import type { ProducerSeqGap as _nova_v1_ProducerSeqGap, ProducerSeqGap__Output as _nova_v1_ProducerSeqGap__Output } from './nova/v1/ProducerSeqGap';
import type { ProducerSeqStale as _nova_v1_ProducerSeqStale, ProducerSeqStale__Output as _nova_v1_ProducerSeqStale__Output } from './nova/v1/ProducerSeqStale';
import type { ReadPlanEntry as _nova_v1_ReadPlanEntry, ReadPlanEntry__Output as _nova_v1_ReadPlanEntry__Output } from './nova/v1/ReadPlanEntry';
import type { ReadPlanRequest as _nova_v1_ReadPlanRequest, ReadPlanRequest__Output as _nova_v1_ReadPlanRequest__Output } from './nova/v1/ReadPlanRequest';
import type { ReadPlanResponse as _nova_v1_ReadPlanResponse, ReadPlanResponse__Output as _nova_v1_ReadPlanResponse__Output } from './nova/v1/ReadPlanResponse';
import type { ReadRequest as _nova_v1_ReadRequest, ReadRequest__Output as _nova_v1_ReadRequest__Output } from './nova/v1/ReadRequest';
import type { ReadResponse as _nova_v1_ReadResponse, ReadResponse__Output as _nova_v1_ReadResponse__Output } from './nova/v1/ReadResponse';
import type { ReconfigureBucketRequest as _nova_v1_ReconfigureBucketRequest, ReconfigureBucketRequest__Output as _nova_v1_ReconfigureBucketRequest__Output } from './nova/v1/ReconfigureBucketRequest';
import type { ReconfigureBucketResponse as _nova_v1_ReconfigureBucketResponse, ReconfigureBucketResponse__Output as _nova_v1_ReconfigureBucketResponse__Output } from './nova/v1/ReconfigureBucketResponse';
import type { ReconfigureStreamRequest as _nova_v1_ReconfigureStreamRequest, ReconfigureStreamRequest__Output as _nova_v1_ReconfigureStreamRequest__Output } from './nova/v1/ReconfigureStreamRequest';
import type { ReconfigureStreamResponse as _nova_v1_ReconfigureStreamResponse, ReconfigureStreamResponse__Output as _nova_v1_ReconfigureStreamResponse__Output } from './nova/v1/ReconfigureStreamResponse';
import type { Record as _nova_v1_Record, Record__Output as _nova_v1_Record__Output } from './nova/v1/Record';
import type { SeqNumMismatch as _nova_v1_SeqNumMismatch, SeqNumMismatch__Output as _nova_v1_SeqNumMismatch__Output } from './nova/v1/SeqNumMismatch';
import type { Stream as _nova_v1_Stream, Stream__Output as _nova_v1_Stream__Output } from './nova/v1/Stream';
import type { StreamClosed as _nova_v1_StreamClosed, StreamClosed__Output as _nova_v1_StreamClosed__Output } from './nova/v1/StreamClosed';
import type { StreamConfig as _nova_v1_StreamConfig, StreamConfig__Output as _nova_v1_StreamConfig__Output } from './nova/v1/StreamConfig';
import type { StreamReconfiguration as _nova_v1_StreamReconfiguration, StreamReconfiguration__Output as _nova_v1_StreamReconfiguration__Output } from './nova/v1/StreamReconfiguration';
import type { SubscribeRequest as _nova_v1_SubscribeRequest, SubscribeRequest__Output as _nova_v1_SubscribeRequest__Output } from './nova/v1/SubscribeRequest';
import type { SubscribeResponse as _nova_v1_SubscribeResponse, SubscribeResponse__Output as _nova_v1_SubscribeResponse__Output } from './nova/v1/SubscribeResponse';
import type { TailDetail as _nova_v1_TailDetail, TailDetail__Output as _nova_v1_TailDetail__Output } from './nova/v1/TailDetail';
import type { ThroughputExceeded as _nova_v1_ThroughputExceeded, ThroughputExceeded__Output as _nova_v1_ThroughputExceeded__Output } from './nova/v1/ThroughputExceeded';
import type { TrimRequest as _nova_v1_TrimRequest, TrimRequest__Output as _nova_v1_TrimRequest__Output } from './nova/v1/TrimRequest';
import type { TrimResponse as _nova_v1_TrimResponse, TrimResponse__Output as _nova_v1_TrimResponse__Output } from './nova/v1/TrimResponse';
import type { WriterSeqRegression as _nova_v1_WriterSeqRegression, WriterSeqRegression__Output as _nova_v1_WriterSeqRegression__Output } from './nova/v1/WriterSeqRegression';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  nova: {
    v1: {
      AppendRecord: MessageTypeDefinition<_nova_v1_AppendRecord, _nova_v1_AppendRecord__Output>
      AppendRequest: MessageTypeDefinition<_nova_v1_AppendRequest, _nova_v1_AppendRequest__Output>
      AppendResponse: MessageTypeDefinition<_nova_v1_AppendResponse, _nova_v1_AppendResponse__Output>
      AppendSessionAck: MessageTypeDefinition<_nova_v1_AppendSessionAck, _nova_v1_AppendSessionAck__Output>
      AppendSessionBatch: MessageTypeDefinition<_nova_v1_AppendSessionBatch, _nova_v1_AppendSessionBatch__Output>
      AppendSessionOpen: MessageTypeDefinition<_nova_v1_AppendSessionOpen, _nova_v1_AppendSessionOpen__Output>
      AppendSessionOpened: MessageTypeDefinition<_nova_v1_AppendSessionOpened, _nova_v1_AppendSessionOpened__Output>
      AppendSessionRequest: MessageTypeDefinition<_nova_v1_AppendSessionRequest, _nova_v1_AppendSessionRequest__Output>
      AppendSessionResponse: MessageTypeDefinition<_nova_v1_AppendSessionResponse, _nova_v1_AppendSessionResponse__Output>
      BatchTooLarge: MessageTypeDefinition<_nova_v1_BatchTooLarge, _nova_v1_BatchTooLarge__Output>
      Bucket: MessageTypeDefinition<_nova_v1_Bucket, _nova_v1_Bucket__Output>
      BucketConfig: MessageTypeDefinition<_nova_v1_BucketConfig, _nova_v1_BucketConfig__Output>
      CheckTailRequest: MessageTypeDefinition<_nova_v1_CheckTailRequest, _nova_v1_CheckTailRequest__Output>
      CheckTailResponse: MessageTypeDefinition<_nova_v1_CheckTailResponse, _nova_v1_CheckTailResponse__Output>
      Class: EnumTypeDefinition
      ContentTypeMismatch: MessageTypeDefinition<_nova_v1_ContentTypeMismatch, _nova_v1_ContentTypeMismatch__Output>
      CreateBucketRequest: MessageTypeDefinition<_nova_v1_CreateBucketRequest, _nova_v1_CreateBucketRequest__Output>
      CreateBucketResponse: MessageTypeDefinition<_nova_v1_CreateBucketResponse, _nova_v1_CreateBucketResponse__Output>
      CreateStreamRequest: MessageTypeDefinition<_nova_v1_CreateStreamRequest, _nova_v1_CreateStreamRequest__Output>
      CreateStreamResponse: MessageTypeDefinition<_nova_v1_CreateStreamResponse, _nova_v1_CreateStreamResponse__Output>
      DataPlaneService: SubtypeConstructor<typeof grpc.Client, _nova_v1_DataPlaneServiceClient> & { service: _nova_v1_DataPlaneServiceDefinition }
      DeleteBucketRequest: MessageTypeDefinition<_nova_v1_DeleteBucketRequest, _nova_v1_DeleteBucketRequest__Output>
      DeleteBucketResponse: MessageTypeDefinition<_nova_v1_DeleteBucketResponse, _nova_v1_DeleteBucketResponse__Output>
      DeleteStreamRequest: MessageTypeDefinition<_nova_v1_DeleteStreamRequest, _nova_v1_DeleteStreamRequest__Output>
      DeleteStreamResponse: MessageTypeDefinition<_nova_v1_DeleteStreamResponse, _nova_v1_DeleteStreamResponse__Output>
      ExchangeTokenRequest: MessageTypeDefinition<_nova_v1_ExchangeTokenRequest, _nova_v1_ExchangeTokenRequest__Output>
      ExchangeTokenResponse: MessageTypeDefinition<_nova_v1_ExchangeTokenResponse, _nova_v1_ExchangeTokenResponse__Output>
      FenceRequest: MessageTypeDefinition<_nova_v1_FenceRequest, _nova_v1_FenceRequest__Output>
      FenceResponse: MessageTypeDefinition<_nova_v1_FenceResponse, _nova_v1_FenceResponse__Output>
      FencingTokenMismatch: MessageTypeDefinition<_nova_v1_FencingTokenMismatch, _nova_v1_FencingTokenMismatch__Output>
      GetBucketRequest: MessageTypeDefinition<_nova_v1_GetBucketRequest, _nova_v1_GetBucketRequest__Output>
      GetBucketResponse: MessageTypeDefinition<_nova_v1_GetBucketResponse, _nova_v1_GetBucketResponse__Output>
      GetStreamRequest: MessageTypeDefinition<_nova_v1_GetStreamRequest, _nova_v1_GetStreamRequest__Output>
      GetStreamResponse: MessageTypeDefinition<_nova_v1_GetStreamResponse, _nova_v1_GetStreamResponse__Output>
      Header: MessageTypeDefinition<_nova_v1_Header, _nova_v1_Header__Output>
      ListBucketsRequest: MessageTypeDefinition<_nova_v1_ListBucketsRequest, _nova_v1_ListBucketsRequest__Output>
      ListBucketsResponse: MessageTypeDefinition<_nova_v1_ListBucketsResponse, _nova_v1_ListBucketsResponse__Output>
      ListStreamsRequest: MessageTypeDefinition<_nova_v1_ListStreamsRequest, _nova_v1_ListStreamsRequest__Output>
      ListStreamsResponse: MessageTypeDefinition<_nova_v1_ListStreamsResponse, _nova_v1_ListStreamsResponse__Output>
      LogDamaged: MessageTypeDefinition<_nova_v1_LogDamaged, _nova_v1_LogDamaged__Output>
      NotFoundDetail: MessageTypeDefinition<_nova_v1_NotFoundDetail, _nova_v1_NotFoundDetail__Output>
      NotOwner: MessageTypeDefinition<_nova_v1_NotOwner, _nova_v1_NotOwner__Output>
      ObjectLocation: MessageTypeDefinition<_nova_v1_ObjectLocation, _nova_v1_ObjectLocation__Output>
      Position: MessageTypeDefinition<_nova_v1_Position, _nova_v1_Position__Output>
      Producer: MessageTypeDefinition<_nova_v1_Producer, _nova_v1_Producer__Output>
      ProducerFenced: MessageTypeDefinition<_nova_v1_ProducerFenced, _nova_v1_ProducerFenced__Output>
      ProducerPolicy: EnumTypeDefinition
      ProducerSeqGap: MessageTypeDefinition<_nova_v1_ProducerSeqGap, _nova_v1_ProducerSeqGap__Output>
      ProducerSeqStale: MessageTypeDefinition<_nova_v1_ProducerSeqStale, _nova_v1_ProducerSeqStale__Output>
      ReadPlanEntry: MessageTypeDefinition<_nova_v1_ReadPlanEntry, _nova_v1_ReadPlanEntry__Output>
      ReadPlanRequest: MessageTypeDefinition<_nova_v1_ReadPlanRequest, _nova_v1_ReadPlanRequest__Output>
      ReadPlanResponse: MessageTypeDefinition<_nova_v1_ReadPlanResponse, _nova_v1_ReadPlanResponse__Output>
      ReadRequest: MessageTypeDefinition<_nova_v1_ReadRequest, _nova_v1_ReadRequest__Output>
      ReadResponse: MessageTypeDefinition<_nova_v1_ReadResponse, _nova_v1_ReadResponse__Output>
      ReconfigureBucketRequest: MessageTypeDefinition<_nova_v1_ReconfigureBucketRequest, _nova_v1_ReconfigureBucketRequest__Output>
      ReconfigureBucketResponse: MessageTypeDefinition<_nova_v1_ReconfigureBucketResponse, _nova_v1_ReconfigureBucketResponse__Output>
      ReconfigureStreamRequest: MessageTypeDefinition<_nova_v1_ReconfigureStreamRequest, _nova_v1_ReconfigureStreamRequest__Output>
      ReconfigureStreamResponse: MessageTypeDefinition<_nova_v1_ReconfigureStreamResponse, _nova_v1_ReconfigureStreamResponse__Output>
      Record: MessageTypeDefinition<_nova_v1_Record, _nova_v1_Record__Output>
      SeqNumMismatch: MessageTypeDefinition<_nova_v1_SeqNumMismatch, _nova_v1_SeqNumMismatch__Output>
      Stream: MessageTypeDefinition<_nova_v1_Stream, _nova_v1_Stream__Output>
      StreamClosed: MessageTypeDefinition<_nova_v1_StreamClosed, _nova_v1_StreamClosed__Output>
      StreamConfig: MessageTypeDefinition<_nova_v1_StreamConfig, _nova_v1_StreamConfig__Output>
      StreamReconfiguration: MessageTypeDefinition<_nova_v1_StreamReconfiguration, _nova_v1_StreamReconfiguration__Output>
      SubscribeRequest: MessageTypeDefinition<_nova_v1_SubscribeRequest, _nova_v1_SubscribeRequest__Output>
      SubscribeResponse: MessageTypeDefinition<_nova_v1_SubscribeResponse, _nova_v1_SubscribeResponse__Output>
      TailDetail: MessageTypeDefinition<_nova_v1_TailDetail, _nova_v1_TailDetail__Output>
      ThroughputExceeded: MessageTypeDefinition<_nova_v1_ThroughputExceeded, _nova_v1_ThroughputExceeded__Output>
      TimestampingMode: EnumTypeDefinition
      TrimRequest: MessageTypeDefinition<_nova_v1_TrimRequest, _nova_v1_TrimRequest__Output>
      TrimResponse: MessageTypeDefinition<_nova_v1_TrimResponse, _nova_v1_TrimResponse__Output>
      WriterSeqRegression: MessageTypeDefinition<_nova_v1_WriterSeqRegression, _nova_v1_WriterSeqRegression__Output>
    }
  }
}

