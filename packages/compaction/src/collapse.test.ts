import type { ChatMessage } from "@longrun/protocol";
import { describe, expect, it } from "vitest";
import { collapseTraces } from "./collapse.ts";
import { createTokenizer, estimateMessageTokens } from "./tokenizer.ts";
import type { ProjectionItem } from "./types.ts";

const tokenizer = createTokenizer();

function item(message: ChatMessage, sourceId: string, locked = false): ProjectionItem {
  return {
    message,
    mark: "raw",
    tokens: estimateMessageTokens(message, tokenizer),
    sourceId,
    ...(message.role === "tool" ? { status: "ok" as const } : {}),
    ...(locked ? { locked } : {}),
  };
}

/** A read_file call and its result (a long file, so a record line is far smaller). */
function readGroup(step: number, locked = false): ProjectionItem[] {
  const id = `c${step}`;
  return [
    item(
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id,
            type: "function",
            function: { name: "read_file", arguments: JSON.stringify({ path: `src/f${step}.ts` }) },
          },
        ],
      },
      `a${step}`,
      locked,
    ),
    item(
      { role: "tool", tool_call_id: id, content: `line of file ${step}\n`.repeat(60) },
      `t${step}`,
      locked,
    ),
  ];
}

const user = item({ role: "user", content: "Refactor the parser." }, "u");

describe("collapseTraces", () => {
  it("keeps a run's last call and result verbatim; wholeRuns collapses it too", () => {
    const items = [user, ...readGroup(0), ...readGroup(1), ...readGroup(2)];
    const standard = collapseTraces(items, { tokenizer });
    expect(standard.items.map((entry) => entry.mark)).toEqual(["raw", "collapsed", "raw", "raw"]);
    expect(standard.items.slice(2)).toEqual(items.slice(5));

    const whole = collapseTraces(items, { tokenizer, wholeRuns: true });
    expect(whole.items.map((entry) => entry.mark)).toEqual(["raw", "collapsed"]);
    expect(String(whole.items[1]?.message.content)).toMatch(/^\[collapsed 3 earlier read\/search calls/);
    expect(whole.saved).toBeGreaterThan(standard.saved);
  });

  it("wholeRuns collapses a run of one group, never the locked active loop", () => {
    const items = [user, ...readGroup(0), ...readGroup(1, true)];
    const whole = collapseTraces(items, { tokenizer, wholeRuns: true });
    expect(whole.items.map((entry) => entry.mark)).toEqual(["raw", "collapsed", "raw", "raw"]);
    expect(whole.items.slice(2)).toEqual(items.slice(3));
    // Without wholeRuns a single group stays as it is.
    expect(collapseTraces(items, { tokenizer }).items).toEqual(items);
  });

  it("wholeRuns takes whichever record saves more: never more tokens than the standard collapse", () => {
    // A last group nearly as small as its record line.
    const tiny: ProjectionItem[] = [
      item(
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "c9", type: "function", function: { name: "read_file", arguments: "{}" } }],
        },
        "a9",
      ),
      item({ role: "tool", tool_call_id: "c9", content: "" }, "t9"),
    ];
    const items = [user, ...readGroup(0), ...readGroup(1), ...tiny];
    const whole = collapseTraces(items, { tokenizer, wholeRuns: true });
    const wholeTokens = whole.items.reduce((sum, entry) => sum + entry.tokens, 0);
    const standard = collapseTraces(items, { tokenizer });
    const standardTokens = standard.items.reduce((sum, entry) => sum + entry.tokens, 0);
    expect(wholeTokens).toBeLessThanOrEqual(standardTokens);
  });
});
