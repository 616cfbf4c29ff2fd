// A self-signed certificate for 127.0.0.1 and localhost, made by openssl into a test's
// directory for the length of the test (never committed).
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import type { SystemTool } from "./system-tool.ts";

export interface TestCert {
  cert: Buffer;
  key: Buffer;
  certFile: string;
  keyFile: string;
}

export async function selfSignedCert(openssl: SystemTool, dir: string): Promise<TestCert> {
  const certFile = join(dir, "cert.pem");
  const keyFile = join(dir, "key.pem");
  await promisify(execFile)(openssl.path, [
    ...["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"],
    ...["-keyout", keyFile, "-out", certFile, "-days", "1", "-subj", "/CN=localhost"],
    ...["-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
  ]);
  return { cert: await readFile(certFile), key: await readFile(keyFile), certFile, keyFile };
}
