// The limits nova's contract sets (docs/storage-layout.md, docs/http-api.md): one source for the star,
// which enforces them, and the gateway, which refuses what it can before asking a star.
export const MAX_HEADERS_PER_RECORD = 100;
/** Content bytes: body plus every header name and value. */
export const MAX_RECORD_BYTES = 1024 * 1024;
export const MAX_BATCH_BYTES = 100 * 1024 * 1024;
/**
 * Records in one batch. Content bytes alone do not bound a batch's memory: an empty record is
 * two bytes on the wire and hundreds once decoded and kept, so a batch at the byte caps could
 * hold tens of millions of them.
 */
export const MAX_BATCH_RECORDS = 10_000;
export const MAX_FENCING_TOKEN_BYTES = 48;
/** A bucket's or stream's creation token, UTF-8 bytes: kept in its descriptor, shown with it. */
export const MAX_CREATION_TOKEN_BYTES = 512;
/** The most an HTTP header may carry of one (UTF-8 bytes), the gateway's own bound. */
export const MAX_CREATION_TOKEN_HEADER_BYTES = MAX_CREATION_TOKEN_BYTES / 2;
export const MAX_STREAM_KEY_BYTES = 512;
/** An append's writer_seq (Durable Streams' Stream-Seq), so the log's marks stay small. */
export const MAX_WRITER_SEQ_BYTES = 1024;
/** One read page: at most this many records and content bytes. */
export const PAGE_MAX_RECORDS = 1000;
export const PAGE_MAX_BYTES = 1024 * 1024;
export const MAX_LIST_LIMIT = 1000;
/**
 * The acks a stream remembers per producer: a retry of one of a producer's last this many
 * batches gets its original ack. So a producer keeps at most this many batches unanswered (an
 * NDJSON session with producer headers pipelines no more), and resends what was unanswered.
 */
export const PRODUCER_ACKS_REMEMBERED = 8;
/** 3 to 48 of a-z 0-9 -, no leading or trailing hyphen. */
export const BUCKET_NAME = /^[a-z0-9][a-z0-9-]{1,46}[a-z0-9]$/;
