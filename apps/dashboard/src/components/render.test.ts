import type { EventData } from "@longrun/protocol";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { applyEvents } from "../state/apply-events.ts";
import { makeEvent, textMessage } from "../state/test-events.ts";
import { emptyThreadState } from "../state/thread-state.ts";
import { percentChange } from "./compaction-notice.tsx";
import { ContextGauge } from "./context-gauge.tsx";
import { Transcript } from "./transcript.tsx";

const saved = { collapse: 120, truncate: 0, microcompact: 0 };
const bigOutput = "line of output\n".repeat(400);

function events() {
  return [
    textMessage(1, "m1", 1, "user", "explore"),
    makeEvent("message.completed", 2, {
      messageId: "m2",
      seq: 2,
      role: "assistant",
      content: "reading",
      toolCalls: [
        { id: "c1", type: "function", function: { name: "read_file", arguments: '{"path":"big.txt"}' } },
      ],
    }),
    makeEvent("message.completed", 3, {
      messageId: "m3",
      seq: 3,
      role: "tool",
      content: bigOutput,
      toolCallId: "c1",
      toolStatus: "ok",
    }),
    makeEvent("context.measured", 4, {
      step: 1,
      rawTokens: 7000,
      projectedTokens: 6500,
      maxInputTokens: 8192,
      triggerTokens: 6144,
      saved,
      needsCompaction: true,
    }),
    makeEvent("compaction.completed", 5, {
      compactionKey: "k1",
      compactionId: "cmp1",
      strategy: "partial",
      trigger: "auto",
      tokensBefore: 6500,
      tokensAfter: 1700,
      saved,
      cutoffMessageId: "m2",
      historyFile: ".longrun/history/t1/a-root.jsonl",
      restored: [{ kind: "file", path: "big.txt", tokens: 300 }],
    }),
    makeEvent("context.measured", 6, {
      step: 2,
      rawTokens: 7100,
      projectedTokens: 1800,
      maxInputTokens: 8192,
      triggerTokens: 6144,
      saved,
      needsCompaction: false,
    }),
    textMessage(7, "m4", 4, "assistant", "done"),
  ];
}

const NOT_READING = { loading: false, load: () => undefined };

function count(html: string, needle: string): number {
  return html.split(needle).length - 1;
}

describe("rendered thread pieces", () => {
  it("renders each message and compaction once after a duplicated replay", () => {
    const replayed = applyEvents(applyEvents(emptyThreadState("t1"), events()), events().slice(2));
    const html = renderToStaticMarkup(
      createElement(Transcript, {
        thread: replayed,
        agentId: "a-root",
        onOpenHistory: () => undefined,
        onSelectAgent: () => undefined,
        earlier: NOT_READING,
      }),
    );
    expect(count(html, 'data-testid="transcript-entry"')).toBe(3);
    expect(count(html, 'data-testid="compaction-notice"')).toBe(1);
    expect(html).toContain('data-compaction-id="cmp1"');
    expect(html).toContain("6.5k → 1.7k tokens");
    expect(html).toContain("(−74%)");
    expect(html).toContain("collapse 120");
    // The tool result is folded into its call, which is one closed line: its body (arguments, the result
    // cut with a way to see the rest) is drawn when it is opened (the browser tests open one).
    expect(html).toContain('data-call-id="c1"');
    expect(html).not.toContain('data-testid="tool-output"');
    expect(html).not.toContain(bigOutput.slice(0, 200));
  });

  it("shows each answer's input, output and the share of the input served from the provider's cache", () => {
    const answered = makeEvent("message.completed", 1, {
      messageId: "m9",
      seq: 9,
      role: "assistant",
      content: "ok",
      usage: { promptTokens: 12_000, completionTokens: 40, cachedTokens: 11_040, totalTokens: 12_040 },
    });
    const html = renderToStaticMarkup(
      createElement(Transcript, {
        thread: applyEvents(emptyThreadState("t1"), [answered]),
        agentId: "a-root",
        onOpenHistory: () => undefined,
        onSelectAgent: () => undefined,
        earlier: NOT_READING,
      }),
    );
    expect(html).toContain("in 12k · out 40 · cached 11k (92 %)");
  });

  it("offers the older part of a long log that was not read, and nothing once all of it is read", () => {
    const thread = applyEvents(emptyThreadState("t1"), events());
    const render = (readFrom: number, loading = false) =>
      renderToStaticMarkup(
        createElement(Transcript, {
          thread: { ...thread, messagesReadFrom: { "a-root": readFrom } },
          agentId: "a-root",
          onOpenHistory: () => undefined,
          onSelectAgent: () => undefined,
          earlier: { loading, load: () => undefined },
        }),
      );
    expect(render(400)).toContain("Show earlier messages (not read yet)");
    expect(render(400, true)).toContain("Reading earlier messages…");
    expect(render(-1)).not.toContain('data-testid="transcript-show-earlier"');
  });

  it("shows the gauge against the window with the trigger and the compaction on the chart", () => {
    const state = applyEvents(emptyThreadState("t1"), events());
    const html = renderToStaticMarkup(createElement(ContextGauge, { thread: state, agentId: "a-root" }));
    expect(html).toContain('data-tokens="1800"');
    expect(html).toContain('data-max="8192"');
    expect(html).toContain('data-trigger="6144"');
    expect(html).toContain('data-level="ok"');
    expect(count(html, 'data-testid="chart-compaction-mark"')).toBe(1);
    expect(html).toContain('data-points="2"');
  });

  it("says when the last request rewrote messages already sent, and what waits otherwise", () => {
    const measuredWith = (seq: number, cache: NonNullable<EventData<"context.measured">["cache"]>) =>
      makeEvent("context.measured", seq, {
        step: seq,
        rawTokens: 7100,
        projectedTokens: 5000,
        maxInputTokens: 8192,
        triggerTokens: 6144,
        saved,
        needsCompaction: false,
        cache,
      });
    const gauge = (extra: ReturnType<typeof makeEvent>[]) =>
      renderToStaticMarkup(
        createElement(ContextGauge, {
          thread: applyEvents(emptyThreadState("t1"), [...events(), ...extra]),
          agentId: "a-root",
        }),
      );
    const rewritten = gauge([
      measuredWith(8, { rewrite: "fit", dueTokens: 2100, savedTokens: 2400, resentTokens: 3100 }),
    ]);
    expect(rewritten).toContain('data-rewrite="fit"');
    expect(rewritten).toContain("rewritten (needed to fit): 3.1k resent to save 2.4k");
    const waiting = gauge([measuredWith(8, { rewrite: null, dueTokens: 1500 })]);
    expect(waiting).toContain("1.5k of reductions wait");
    // An extension with nothing due, or an event without cache figures, says nothing.
    expect(gauge([measuredWith(8, { rewrite: null, dueTokens: 0 })])).not.toContain("gauge-cache");
    expect(gauge([])).not.toContain("gauge-cache");
  });

  it("shows the size after a /compact that came after the last measurement", () => {
    const manual = makeEvent("compaction.completed", 8, {
      compactionKey: "k2",
      compactionId: "cmp2",
      strategy: "partial",
      trigger: "manual",
      tokensBefore: 1900,
      tokensAfter: 900,
      saved,
      cutoffMessageId: "m4",
      historyFile: null,
      restored: [],
    });
    const state = applyEvents(emptyThreadState("t1"), [...events(), manual]);
    const html = renderToStaticMarkup(createElement(ContextGauge, { thread: state, agentId: "a-root" }));
    expect(html).toContain('data-tokens="900"');
    expect(html).toContain("after the compaction, no model call since");
    expect(count(html, 'data-testid="chart-compaction-mark"')).toBe(2);
  });
});

describe("percentChange", () => {
  it("signs growth and reduction", () => {
    expect(percentChange(2200, 2600)).toBe("+18%");
    expect(percentChange(6500, 1700)).toBe("−74%");
  });
});
