import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { redactAccessToken } from "./request-log.ts";

test("redactAccessToken removes every access_token value, however the name is encoded", () => {
  const cases: [string, string][] = [
    ["/v1/x", "/v1/x"],
    ["/v1/x?seq_num=0", "/v1/x?seq_num=0"],
    ["/v1/x?access_token=abc.def.ghi", "/v1/x?access_token=[redacted]"],
    [
      "/v1/x?seq_num=0&access_token=abc&int64=string",
      "/v1/x?seq_num=0&access_token=[redacted]&int64=string",
    ],
    ["/v1/x?access%5Ftoken=abc", "/v1/x?access%5Ftoken=[redacted]"],
    [
      "/v1/x?access_token=a&access_token=b",
      "/v1/x?access_token=[redacted]&access_token=[redacted]",
    ],
    ["/v1/x?access_token", "/v1/x?access_token=[redacted]"],
    ["/v1/x?access_tokens=keep&%zz=keep", "/v1/x?access_tokens=keep&%zz=keep"],
  ];
  for (const [url, redacted] of cases) assert.equal(redactAccessToken(url), redacted);
});

test("no access_token value survives, and the other parameters are untouched", () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.constantFrom("seq_num", "count", "x"), fc.string()), { maxLength: 4 }),
      fc.string({ minLength: 8 }).map((s) => `secret-${s}`),
      fc.nat(4),
      (others, token, at) => {
        const params = others.map(([k, v]) => `${k}=${encodeURIComponent(v)}`);
        params.splice(Math.min(at, params.length), 0, `access_token=${encodeURIComponent(token)}`);
        const out = redactAccessToken(`/v1/r?${params.join("&")}`);
        assert.ok(!out.includes(encodeURIComponent(token)));
        const kept = new URLSearchParams(out.split("?")[1]);
        kept.delete("access_token");
        assert.deepEqual([...kept], others);
      },
    ),
  );
});
