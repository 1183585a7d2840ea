import { ProviderState } from "@longrun/protocol";

const PREFIX = "longrun.v1.";

/**
 * Provider-private state (encrypted reasoning, response ids) handed to a Responses client as the
 * `encrypted_content` of a reasoning item. The client echoes it back; it means something only to the
 * upstream chain that produced it, and longrun decides when it may travel again (as the runtime does).
 */
export function encodeProviderState(state: ProviderState): string {
  return PREFIX + Buffer.from(JSON.stringify(state), "utf8").toString("base64url");
}

/** The state a client echoed back, or null when the item was not made by longrun or is damaged. */
export function decodeProviderState(encrypted: string | null | undefined): ProviderState | null {
  if (!encrypted?.startsWith(PREFIX)) return null;
  try {
    const parsed = ProviderState.safeParse(
      JSON.parse(Buffer.from(encrypted.slice(PREFIX.length), "base64url").toString("utf8")),
    );
    return parsed.success ? parsed.data : null;
  } catch {
    // Not state this server wrote (another provider's blob): nothing to restore.
    return null;
  }
}
