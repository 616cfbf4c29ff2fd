// Original file: proto/nova/v1/dataplane.proto


export interface DeleteStreamResponse {
}

export interface DeleteStreamResponse__Output {
}
