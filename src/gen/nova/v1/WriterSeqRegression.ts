// Original file: proto/nova/v1/dataplane.proto


export interface WriterSeqRegression {
  'last_writer_seq'?: (string);
}

export interface WriterSeqRegression__Output {
  'last_writer_seq': (string);
}
