// Original file: proto/nova/v1/adminplane.proto


export interface StarStatsRequest {
}

export interface StarStatsRequest__Output {
}
