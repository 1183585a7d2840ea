import { createHmac, timingSafeEqual } from "node:crypto";
import { invalidRequest, SIM_ERROR_CODES, type SimError } from "./errors.ts";
import { EMPTY_CHAIN } from "./message-hash.ts";
import type { WireMessage, WireReasoningDetail } from "./wire.ts";

const ENCRYPTED = "reasoning.encrypted";

function sign(secret: string, payload: string): string {
  return createHmac("sha256", secret).update(payload).digest("base64url");
}

/**
 * Encrypted reasoning item for an answer: an HMAC-signed token binding it to `chain`, the rolling hash
 * of the exact request messages that preceded the answer.
 */
export function createEncryptedReasoning(secret: string, chain: string, id: string): WireReasoningDetail {
  const payload = Buffer.from(JSON.stringify({ v: 1, chain, id })).toString("base64url");
  return { type: ENCRYPTED, id, data: `${payload}.${sign(secret, payload)}` };
}

function invalid(index: number, why: string): SimError {
  return invalidRequest(
    SIM_ERROR_CODES.invalidEncryptedContent,
    `The encrypted content for messages.[${index}] could not be verified: ${why}.`,
    `messages.[${index}].reasoning_details`,
  );
}

function readChain(secret: string, data: string): string | undefined {
  const [payload = "", signature = ""] = data.split(".");
  const expected = Buffer.from(sign(secret, payload));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { chain?: unknown };
    return typeof parsed.chain === "string" ? parsed.chain : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Reject encrypted reasoning replayed outside its chain: every encrypted item on an assistant message
 * must be signed by this server and the messages before it must hash to the chain it was issued for.
 */
export function validateEncryptedReasoning(
  secret: string,
  messages: readonly WireMessage[],
  hashes: readonly string[],
): SimError | undefined {
  for (const [index, message] of messages.entries()) {
    const encrypted = (message.reasoning_details ?? []).filter((detail) => detail?.type === ENCRYPTED);
    if (encrypted.length === 0) continue;
    if (message.role !== "assistant") return invalid(index, "encrypted reasoning on a non-assistant message");
    const before = index === 0 ? EMPTY_CHAIN : (hashes[index - 1] ?? EMPTY_CHAIN);
    for (const detail of encrypted) {
      const chain = typeof detail.data === "string" ? readChain(secret, detail.data) : undefined;
      if (chain === undefined) return invalid(index, "bad signature");
      if (chain !== before) return invalid(index, "it was issued for a different conversation prefix");
    }
  }
  return undefined;
}
