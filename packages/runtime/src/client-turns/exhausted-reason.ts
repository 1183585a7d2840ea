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
  const fixed = toolsTokens + system;
  if (fixed > limitTokens / 2) {
    if (fixed >= limitTokens)
      return `${base}: the tool definitions and system prompt together take ${count(fixed)}`;
    // They fit: what does not is the messages in the room they leave — name the largest of them.
    const room = limitTokens - fixed;
    return `${base}: the tool definitions and system prompt take ${count(fixed)}, leaving ${count(room)}: ${largestMessages(projection)}`;
  }
  if (size * 2 > limitTokens) return `${base}: ${what} ${count(size)}`;
  return `${base}: the recent messages that must stay verbatim take ${count(rest)}`;
}

/** What the non-system messages take, and the largest of them (at most three), described. */
function largestMessages(projection: Measured): string {
  const ranked = projection.messageTokens
    .map((tokens, index) => ({ tokens, index }))
    .filter(({ index }) => projection.marks[index] !== "system")
    .sort((a, b) => b.tokens - a.tokens || a.index - b.index);
  const total = ranked.reduce((sum, { tokens }) => sum + tokens, 0);
  const named = ranked
    .slice(0, 3)
    .map(
      ({ tokens, index }) =>
        `a ${projection.messages[index]?.role ?? "message"} message (#${index}, ${projection.marks[index] ?? "raw"}) ${count(tokens)}`,
    );
  return `the messages take ${count(total)}; the largest: ${named.join(", ")}`;
}
