// JSON and NDJSON bodies are read as UTF-8: one labelled with another charset is refused, not
// read as UTF-8 (Latin-1 bytes that happen to be UTF-8 would be stored as other text).
import { unsupportedCharset } from "../errors/index.ts";

/** Throws 415 when `contentType` names a charset other than UTF-8. */
export function checkUtf8Charset(contentType: string | undefined): void {
  for (const param of contentType?.split(";").slice(1) ?? []) {
    const [name = "", value = ""] = param.split("=", 2);
    if (name.trim().toLowerCase() !== "charset") continue;
    const charset = value.trim().replace(/^"(.*)"$/, "$1");
    if (!/^utf-?8$/i.test(charset)) throw unsupportedCharset(charset);
  }
}
