import type { Projection } from "./project.ts";

/** Outcome of the post-compaction check. */
export type Verification = { ok: true } | { ok: false; status: "context_exhausted"; reason: string };

/**
 * I6: a projection over its limit is never reported ok. The reason names the culprit when one
 * message (recent message, restored file or the summary) alone takes most of the window,
 * since another compaction cannot help then.
 */
export function verifyProjection(
  projection: Pick<Projection, "tokens" | "limitTokens" | "messageTokens" | "marks">,
): Verification {
  if (projection.tokens <= projection.limitTokens) return { ok: true };
  let largest = -1;
  let largestTokens = 0;
  projection.messageTokens.forEach((tokens, index) => {
    if (tokens > largestTokens) {
      largest = index;
      largestTokens = tokens;
    }
  });
  const base = `context exhausted: ${projection.tokens} tokens > limit ${projection.limitTokens}`;
  if (largest >= 0 && largestTokens * 2 > projection.limitTokens) {
    const mark = projection.marks[largest] ?? "raw";
    const what =
      mark === "summary" ? "the summary" : mark === "restored" ? "a restored item" : `a ${mark} message`;
    return {
      ok: false,
      status: "context_exhausted",
      reason: `${base}; ${what} (#${largest}) alone is ${largestTokens} tokens, so compaction cannot fit it: start a new thread`,
    };
  }
  return { ok: false, status: "context_exhausted", reason: `${base}; start a new thread` };
}
