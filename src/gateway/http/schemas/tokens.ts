// ExchangeToken: an api key for a short-lived bearer token.
import { Type } from "typebox";
import { Int64, Uint32 } from "./integers.ts";

export const TokenRequest = Type.Object(
  {
    key_id: Type.String({ minLength: 1 }),
    secret: Type.String({ minLength: 1 }),
    bucket: Type.Optional(
      Type.String({ description: "Narrow the token's grants to this bucket." }),
    ),
    scope: Type.Optional(
      Type.String({
        minLength: 1,
        description: "An explicit subset of grants, in the nova: grammar.",
      }),
    ),
    ttl_seconds: Type.Optional(
      Uint32("Lifetime in seconds; 0 or absent is 15 minutes; clamped to 1 hour"),
    ),
  },
  {
    $id: "TokenRequest",
    additionalProperties: false,
    description: "Exchanges an api key for a token; give exactly one of bucket or scope.",
    examples: [{ key_id: "ak_1", secret: "s3cr3t", bucket: "shop", ttl_seconds: 900 }],
  },
);

export const TokenResponse = Type.Object(
  {
    token: Type.String({ description: "Send as `Authorization: Bearer <token>`." }),
    expires_at_unix_ms: Int64("When the token expires"),
  },
  {
    $id: "TokenResponse",
    additionalProperties: false,
    description: "A short-lived bearer token.",
    examples: [{ token: "eyJhbGciOiJIUzI1NiJ9.e30.sig", expires_at_unix_ms: 1709482500000 }],
  },
);
