import type { Projection } from "@longrun/compaction";

type Measured = Pick<
  Projection,
  "tokens" | "limitTokens" | "toolsTokens" | "messageTokens" | "marks" | "messages"
>;

const count = (tokens: number) => tokens.toLocaleString("en-US");

/**
 * Why a gateway conversation cannot continue, naming what is over: the client's tool definitions,
 * its system prompt, one message, or the recent messages together — with the figures of each, so a
 * user knows what to shorten. (The pipeline's own verdict names only the largest message, and blamed
 * "a system message" when the client's tools were what pushed the request over.) Worded without the
 * phrases clients read as a provider overflow, so no client answers it by compacting in a loop.
 */
export function exhaustedReason(projection: Measured): string {
  const { tokens, limitTokens, toolsTokens } = projection;
  let system = 0;
  let largest = -1;
  let rest = 0;
  projection.messageTokens.forEach((messageTokens, index) => {
    if (projection.marks[index] === "system") {
      system += messageTokens;
      return;
    }
    rest += messageTokens;
    if (largest < 0 || messageTokens > (projection.messageTokens[largest] ?? 0)) largest = index;
  });
  const largestTokens = largest >= 0 ? (projection.messageTokens[largest] ?? 0) : 0;
  const parts = `tools ${count(toolsTokens)}, system prompt ${count(system)}, messages ${count(rest)}`;
  const base = `the request needs ${count(tokens)} tokens and the window holds ${count(limitTokens)} (${parts})`;
  const candidates: Array<[string, number]> = [
    ["the client's tool definitions alone take", toolsTokens],
    ["the system prompt alone takes", system],
    [
      largest >= 0
        ? `one ${projection.messages[largest]?.role ?? "message"} message (#${largest}, ${projection.marks[largest] ?? "raw"}) alone takes`
        : "one message alone takes",
      largestTokens,
    ],
  ];
  const [what, size] = candidates.reduce((best, candidate) => (candidate[1] > best[1] ? candidate : best));
  // One part is to blame alone only when it takes most of the window: a system prompt of 62 % beside
  // tools of 23 % (qwen-code's fixed prompt) is the two together.
  if (size * 4 >= limitTokens * 3) return `${base}: ${what} ${count(size)}`;
  if (toolsTokens + system > limitTokens / 2) {
    return `${base}: the tool definitions and system prompt together take ${count(toolsTokens + system)}`;
  }
  if (size * 2 > limitTokens) return `${base}: ${what} ${count(size)}`;
  return `${base}: the recent messages that must stay verbatim take ${count(rest)}`;
}
