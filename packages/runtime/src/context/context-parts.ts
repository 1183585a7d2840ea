import { LEDGER_FOOTER, LEDGER_HEADER, type Projection, type Tokenizer } from "@longrun/compaction";
import { type ContextPart, contentText } from "@longrun/protocol";

const PART_OF_MARK = {
  system: "system",
  prefix: "system",
  pinned: "pinned",
  summary: "summary",
  restored: "restored",
  raw: "recent",
  repaired: "recent",
  collapsed: "recent",
} as const satisfies Record<Projection["marks"][number], ContextPart["part"]>;

const ORDER: ContextPart["part"][] = ["system", "tools", "pinned", "summary", "ledger", "restored", "recent"];

/**
 * The next request split into what it is made of — system prompt, tool definitions, pinned task, summary
 * text, working-state ledger, restored files and plan, recent messages — with the projection's own
 * per-message estimates (the ledger's share of the summary message counted by the same tokenizer), so a
 * client draws the map without re-deriving anything. `tokens` of the projection may be above their sum:
 * it is anchored on the provider's reported usage.
 */
export function contextParts(projection: Projection, tokenizer: Tokenizer): ContextPart[] {
  const totals = new Map<ContextPart["part"], { tokens: number; messages: number }>();
  const add = (part: ContextPart["part"], tokens: number, messages: number) => {
    const known = totals.get(part) ?? { tokens: 0, messages: 0 };
    totals.set(part, { tokens: known.tokens + tokens, messages: known.messages + messages });
  };
  add("tools", projection.toolsTokens, 0);
  projection.marks.forEach((mark, index) => {
    const tokens = projection.messageTokens[index] ?? 0;
    const message = projection.messages[index];
    if (mark === "summary" && message) {
      const ledger = ledgerTokens(contentText(message.content), tokenizer);
      add("ledger", Math.min(ledger, tokens), 0);
      add("summary", Math.max(0, tokens - ledger), 1);
      return;
    }
    add(PART_OF_MARK[mark], tokens, 1);
  });
  return ORDER.flatMap((part) => {
    const total = totals.get(part);
    return total && (total.tokens > 0 || total.messages > 0) ? [{ part, ...total }] : [];
  });
}

/** Tokens of the ledger block inside a summary message's text (0 when it has none). */
function ledgerTokens(text: string, tokenizer: Tokenizer): number {
  const start = text.indexOf(LEDGER_HEADER);
  if (start < 0) return 0;
  const end = text.indexOf(LEDGER_FOOTER, start);
  const block = text.slice(start, end < 0 ? text.length : end + LEDGER_FOOTER.length);
  return tokenizer.count(block);
}
