// Original file: proto/nova/v1/dataplane.proto


export interface TrimResponse {
}

export interface TrimResponse__Output {
}
