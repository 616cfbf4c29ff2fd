// The one error body: responses, SSE `error` events and NDJSON lines.
import { Type } from "typebox";
import { ERROR_CODES } from "../../errors/index.ts";
import { Uint64 } from "./integers.ts";

export const ErrorBody = Type.Object(
  {
    code: Type.String({
      description: `For programs, one of: ${ERROR_CODES.join(", ")}. A later version may add codes: treat one you do not know by its status.`,
    }),
    message: Type.String({ description: "For humans." }),
    retryable: Type.Boolean({ description: "Whether the same request may succeed later." }),
    field: Type.Optional(
      Type.String({
        description:
          "The input at fault: a body path (records[3].headers[1].value), query parameter, header or path parameter.",
      }),
    ),
    position: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: "bad_json: the character offset where parsing stopped.",
      }),
    ),
    seq_num: Type.Optional(Uint64("not_utf8: the record that is not valid UTF-8")),
    expected_seq_num: Type.Optional(
      Uint64("seq_num_mismatch: the seq_num the batch would have needed"),
    ),
    token_installed: Type.Optional(
      Type.Boolean({ description: "fencing_token_mismatch: whether the stream has a token." }),
    ),
    tail: Type.Optional(
      Type.Ref("Position", { description: "range_not_satisfiable: the stream's tail." }),
    ),
    limit_bytes_per_second: Type.Optional(
      Uint64("resource_exhausted: the stream's throughput cap, bytes a second"),
    ),
    retry_after_ms: Type.Optional(
      Uint64("resource_exhausted: after this long the same append would be admitted"),
    ),
    outcome: Type.Optional(
      Type.Literal("unknown", {
        description: "unavailable: the append may or may not have landed.",
      }),
    ),
    expected_seq: Type.Optional(
      Uint64("producer_seq_gap: the seq the producer's next batch must carry"),
    ),
    received_seq: Type.Optional(Uint64("producer_seq_gap: the seq this batch carried")),
    unknown_producer: Type.Optional(
      Type.Boolean({
        description:
          "producer_seq_gap: the stream holds nothing of this producer (never seen, or forgotten).",
      }),
    ),
    last_seq: Type.Optional(
      Uint64("producer_seq_stale: the producer's latest seq the stream remembers"),
    ),
    current_epoch: Type.Optional(Uint64("producer_fenced: the producer's epoch now")),
    stream_content_type: Type.Optional(
      Type.String({ description: "content_type_mismatch: the stream's content type." }),
    ),
    stream: Type.Optional(
      Type.String({
        description: "GET /v1/subscribe: the stream (`<bucket>/<key>`) the error is about.",
      }),
    ),
    last_event_id: Type.Optional(
      Type.String({
        description: "An SSE error event: the id that resumes the subscription after it.",
      }),
    ),
  },
  {
    $id: "ErrorBody",
    // Typed fields may be added; clients ignore what they do not know.
    additionalProperties: true,
    description: "Every error: a code for programs, a message for humans, and typed fields.",
    examples: [
      { code: "stream_not_found", message: "stream orders/eu not found", retryable: false },
      {
        code: "seq_num_mismatch",
        message: "match_seq_num does not match the tail",
        retryable: false,
        expected_seq_num: 103,
      },
      {
        code: "unavailable",
        message: "the star is unavailable; retry",
        retryable: true,
        outcome: "unknown",
      },
    ],
  },
);
