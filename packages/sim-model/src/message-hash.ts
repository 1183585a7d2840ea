import { createHash } from "node:crypto";
import { contentText, type WireMessage } from "./wire.ts";

/**
 * Digest of what a message *says*: role, text, images, name, tool calls and tool_call_id.
 * Provider-private fields (reasoning_details, reasoning_content) are left out, so a history replayed
 * with or without them hashes the same.
 */
export function messageDigest(message: WireMessage): string {
  const images =
    typeof message.content === "object" && message.content !== null
      ? message.content.flatMap((part) => (part.type === "image_url" ? [part.image_url.url] : []))
      : [];
  const canonical = [
    message.role,
    contentText(message.content),
    images,
    message.name ?? null,
    (message.tool_calls ?? []).map((call) => [call.id, call.function.name, call.function.arguments]),
    message.tool_call_id ?? null,
  ];
  return createHash("sha256").update(JSON.stringify(canonical)).digest("hex");
}

/** Rolling hashes: element i is the hash of messages[0..i] (inclusive), chained digest by digest. */
export function prefixHashes(messages: readonly WireMessage[]): string[] {
  const hashes: string[] = [];
  let previous = "";
  for (const message of messages) {
    previous = createHash("sha256").update(previous).update(messageDigest(message)).digest("hex");
    hashes.push(previous);
  }
  return hashes;
}

/** Hash of the empty prefix (no messages before), so position 0 has a chain too. */
export const EMPTY_CHAIN = "";
