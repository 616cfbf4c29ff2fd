// Original file: proto/nova/v1/dataplane.proto


export interface DeleteBucketResponse {
}

export interface DeleteBucketResponse__Output {
}
