// Original file: proto/nova/v1/dataplane.proto


export interface ContentTypeMismatch {
  'stream_content_type'?: (string);
}

export interface ContentTypeMismatch__Output {
  'stream_content_type': (string);
}
