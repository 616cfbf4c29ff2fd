// Original file: proto/nova/v1/adminplane.proto


export interface HealthRequest {
}

export interface HealthRequest__Output {
}
