import { LongrunError } from "@longrun/protocol";
import { DEFAULT_MAX_MESSAGE_CHARS, type ServerDeps } from "./server-deps.ts";

/**
 * Refuses a user message (or a sub-agent brief) over the configured size with 413, before anything is
 * stored or counted: one oversized message must not cost the server more than this comparison.
 */
export function checkMessageSize(
  deps: Pick<ServerDeps, "maxMessageChars">,
  text: string,
  what: string,
): void {
  const max = deps.maxMessageChars ?? DEFAULT_MAX_MESSAGE_CHARS;
  if (text.length > max)
    throw new LongrunError(
      "payload_too_large",
      `${what} is ${text.length} characters; this server accepts at most ${max} (LONGRUN_MAX_MESSAGE_CHARS)`,
    );
}
