// Original file: proto/nova/v1/adminplane.proto


export interface SettleStarRequest {
}

export interface SettleStarRequest__Output {
}
