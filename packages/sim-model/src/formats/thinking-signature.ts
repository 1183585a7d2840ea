import { createHmac, timingSafeEqual } from "node:crypto";

/** The signature of a thinking block (or the data of a redacted one): an HMAC over its text. */
export function signThinking(secret: string, text: string): string {
  return createHmac("sha256", secret).update(`thinking.${text}`).digest("base64url");
}

/** True when `signature` is this server's for `text`. */
export function verifyThinking(secret: string, text: string, signature: string): boolean {
  const expected = Buffer.from(signThinking(secret, text));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** A redacted thinking block's data: its text and signature, opaque to the client. */
export function redactThinking(secret: string, text: string): string {
  const payload = Buffer.from(text).toString("base64url");
  return `${payload}.${signThinking(secret, text)}`;
}

/** True when a redacted block's data was issued by this server. */
export function verifyRedacted(secret: string, data: string): boolean {
  const [payload = "", signature = ""] = data.split(".");
  return verifyThinking(secret, Buffer.from(payload, "base64url").toString("utf8"), signature);
}
