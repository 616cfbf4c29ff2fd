// Original file: /work/main/proto/nova/v1/dataplane.proto


export interface TrimResponse {
}

export interface TrimResponse__Output {
}
