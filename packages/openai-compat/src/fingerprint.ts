import type { NewMessage } from "@longrun/protocol";
import { textOf } from "./content.ts";

/**
 * Key order and whitespace of tool arguments vary between clients' re-serializations: compare the
 * value. Top-level `false` and `null` arguments count as absent: clients fill in optional flags when
 * they echo a call (Claude Code 2.1.197 adds `"replace_all": false` to every Edit it sends back).
 */
function canonicalArguments(text: string): string {
  try {
    const value: unknown = JSON.parse(text);
    if (value === null || typeof value !== "object" || Array.isArray(value)) return JSON.stringify(value);
    const set = Object.entries(value as Record<string, unknown>).filter(
      ([, argument]) => argument !== false && argument !== null,
    );
    return JSON.stringify(sortKeys(Object.fromEntries(set)));
  } catch {
    // Arguments that are not JSON are compared as text.
    return text.trim();
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.keys(value as Record<string, unknown>)
      .sort()
      .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
  );
}

function images(message: Pick<NewMessage, "content">): string[] {
  if (!Array.isArray(message.content)) return [];
  return message.content.flatMap((part) => (part.type === "image_url" ? [part.image_url.url] : []));
}

/**
 * What identifies a conversation item across the client's resends: role, visible text, images, tool
 * calls (id, name, arguments by value) and the answered call id. Provider-private state, names and
 * whitespace at the ends are left out: clients drop or reformat them when they echo an answer back.
 */
export function fingerprint(
  message: Pick<NewMessage, "role" | "content" | "toolCalls" | "toolCallId">,
): string {
  return JSON.stringify([
    message.role,
    textOf(message.content).replace(/\r\n/g, "\n").trim(),
    images(message),
    (message.toolCalls ?? []).map((call) => [
      call.id,
      call.function.name,
      canonicalArguments(call.function.arguments),
    ]),
    message.toolCallId ?? null,
  ]);
}
