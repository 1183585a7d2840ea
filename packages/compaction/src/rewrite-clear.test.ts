import type { StoredMessage } from "@longrun/protocol";
import { describe, expect, it } from "vitest";
import { clearOlderResults } from "./microcompact.ts";
import type { Projection } from "./project.ts";
import { factLog, tokenizer, walk, wire } from "./stable.test-helper.ts";
import { estimateMessageTokens } from "./tokenizer.ts";
import type { ProjectionItem } from "./types.ts";

describe("a rewrite clears older results past its first change", () => {
  /** A task, long reads, test runs with long output (one failing), then long reads until a rewrite must fit. */
  function history(): StoredMessage[] {
    const { facts, add, call } = factLog();
    const read = (index: number) =>
      call(
        `r${index}`,
        "read_file",
        { path: `src/long${index}.ts` },
        `line ${index} of a long file\n`.repeat(80),
      );
    add({ role: "user", content: "Fix the parser." });
    for (let index = 0; index < 8; index++) read(index);
    for (let index = 0; index < 4; index++) {
      const output =
        index === 1
          ? `${"collecting tests\n".repeat(30)}Traceback (most recent call last):\nAssertionError: parser drops the last token\n`
          : `test ${index} passed\n`.repeat(40);
      call(
        `t${index}`,
        "bash",
        { command: `pytest -q tests/test_${index}.py` },
        `<returncode>${index === 1 ? 1 : 0}</returncode>\n<output>\n${output}</output>`,
      );
    }
    for (let index = 8; index < 28; index++) read(index);
    return facts;
  }

  it("keeps the most recent results and what a failure said, and the next call extends it", () => {
    const facts = history();
    const profile = { maxInputTokens: 8_000 };
    let previous: string[] = [];
    let checked = 0;
    let extended = 0;
    let clearedAt = -1;
    for (const { end, projection } of walk({ facts, profile, rewriteMinTokens: undefined })) {
      const sent = wire(projection);
      const contents = projection.messages.map((message) => String(message.content ?? ""));
      const cleared = contents.filter((content) => content.startsWith("[older result cleared:"));
      if (projection.rewrite?.rewritten && cleared.length > 0 && clearedAt < 0) {
        clearedAt = end;
        const first = sent.findIndex((message, index) => message !== previous[index]);
        // Nothing before the rewrite's first change was cleared ...
        expect(contents.slice(0, first).some((content) => content.startsWith("[older result cleared:"))).toBe(
          false,
        );
        // ... the failing run keeps its telling line, the passing runs only their size ...
        expect(
          cleared.some((content) =>
            content.includes("it failed: AssertionError: parser drops the last token"),
          ),
        ).toBe(true);
        expect(
          cleared.some((content) =>
            /^\[older result cleared: [\d,]+ chars; re-run the call if needed\]$/.test(content),
          ),
        ).toBe(true);
        // ... and the five most recent results stay as they were.
        const results = projection.messages.filter((message) => message.role === "tool");
        for (const result of results.slice(-5))
          expect(String(result.content)).not.toMatch(/^\[older result cleared/);
        const stage = projection.stages.find((report) => report.name === "microcompact");
        expect(stage?.removed).toMatch(/tool results cleared .* past the rewrite's first change/);
        expect(stage?.tokensAfter).toBeLessThan(stage?.tokensBefore ?? 0);
        expect(projection.saved.microcompact).toBeGreaterThan(0);
        checked++;
      } else if (clearedAt >= 0 && projection.rewrite?.cause === null) {
        // The cleared forms stay: the request after the rewrite extends it byte for byte.
        expect(sent.slice(0, previous.length)).toEqual(previous);
        extended++;
      }
      previous = sent;
    }
    expect(checked).toBe(1);
    expect(extended).toBeGreaterThan(0);
  });
});

describe("a result that replaces a placeholder already sent breaks the cache there", () => {
  /** Three reads with long arguments; the first one's result comes late, after more reads. */
  function history(): StoredMessage[] {
    const { facts, add, call } = factLog();
    const lines = (id: string, count: number) =>
      `result of ${id}:\n${"src/a.ts:12: const x = 1;\n".repeat(count)}`;
    const args = JSON.stringify({ file_path: "big.txt", content: "y".repeat(5_000) });
    add({
      role: "assistant",
      content: "ok",
      toolCalls: [0, 1, 2].map((index) => ({
        id: `c${index}`,
        type: "function" as const,
        function: { name: "read_file", arguments: args },
      })),
    });
    add({ role: "tool", toolCallId: "c1", toolStatus: "ok", content: lines("c1", 1) });
    add({ role: "tool", toolCallId: "c2", toolStatus: "ok", content: lines("c2", 1) });
    call("c3", "read_file", { path: "src/a.ts" }, lines("c3", 40));
    call("c4", "grep", { pattern: "foo", path: "src" }, lines("c4", 40));
    call("c5", "read_file", { path: "src/a.ts" }, lines("c5", 3));
    call("c6", "grep", { pattern: "foo", path: "src" }, lines("c6", 3));
    call("c7", "bash", { command: "cat src/a.ts | head -n 20" }, lines("c7", 3));
    add({ role: "tool", toolCallId: "c0", toolStatus: "ok", content: lines("c0", 40) });
    call("c8", "read_file", { path: "src/a.ts" }, lines("c8", 3));
    call("c9", "grep", { pattern: "foo", path: "src" }, lines("c9", 3));
    return facts;
  }

  it("a rewrite in the same call clears older results from there and counts them as resent", () => {
    const facts = history();
    // A window this history was sized for: the trigger (75 %) falls where c0's result arrives.
    const profile = { maxInputTokens: 2_114, triggerRatio: 0.75 };
    let previous: string[] = [];
    let checked = 0;
    for (const { projection } of walk({ facts, profile, rewriteMinTokens: undefined })) {
      const sent = wire(projection);
      const first = sent.findIndex((message, index) => message !== previous[index]);
      // The previous request sent a placeholder for c0's result; this one has the result.
      const placeholder = (messages: string[]) =>
        messages.some((message) => message.includes("[tool call cancelled]"));
      if (placeholder(previous) && !placeholder(sent)) {
        expect(projection.rewrite?.rewritten).toBe(true);
        checked++;
        // The placeholder the previous request sent for c0 is where both requests part ...
        expect(previous[first]).toMatch(/c0/);
        // ... so c0's real result (older than the five most recent) is cleared there ...
        expect(projection.messages[first]?.content).toMatch(/^\[older result cleared: /);
        // ... and the rewrite counts everything from there as resent.
        // (the memo covers the messages after the system prompt)
        const segments = projection.memo?.segments ?? [];
        const tokens = segments.slice(first - 1).reduce((sum, segment) => sum + segment.item.tokens, 0);
        expect(projection.rewrite?.resentTokens).toBe(tokens);
      }
      previous = sent;
    }
    expect(checked).toBe(1);
  });
});

describe("clearing past a rewrite's first change counts toward the compaction decision", () => {
  /**
   * A task, three reads (a trace that collapses), `suiteRuns` full-suite runs with `suiteLines` lines of
   * output, then focused test runs with `runLines` lines each: collapse and truncation free little.
   */
  function history(shape: { suiteRuns: number; suiteLines: number; runLines: number }): StoredMessage[] {
    const { facts, add, call } = factLog();
    add({ role: "user", content: "Make the test suite pass." });
    for (let index = 0; index < 3; index++)
      call(
        `r${index}`,
        "read_file",
        { path: `src/m${index}.ts` },
        `export const m${index} = ${index};\n`.repeat(6),
      );
    for (let index = 0; index < shape.suiteRuns; index++)
      call(
        `s${index}`,
        "bash",
        { command: "pytest -q tests/" },
        `<returncode>0</returncode>\n<output>\n${`tests/test_${index}.py::case passed\n`.repeat(shape.suiteLines)}</output>`,
      );
    for (let index = 0; index < 30; index++)
      call(
        `t${index}`,
        "bash",
        { command: `pytest -q tests/test_${index}.py` },
        `<returncode>0</returncode>\n<output>\n${`test_${index} case passed\n`.repeat(shape.runLines)}</output>`,
      );
    return facts;
  }

  /**
   * Walks an 8k window up to the first LLM compaction and checks every rewrite whose clearing brought the
   * request under the trigger (collapse and truncation left it over): it fits, older results are
   * cleared, the five most recent stay. Returns them: LLM compaction is asked for only when the cost
   * model finds it cheaper than that rewrite (compaction-economy.ts), never as "must".
   */
  function clearingRewrites(facts: StoredMessage[]): Projection[] {
    const found: Projection[] = [];
    for (const { projection } of walk({
      facts,
      // The geometry the cases below are built for (trigger 6,000 of 8k), not the default trigger.
      profile: { maxInputTokens: 8_000, triggerRatio: 0.75 },
      rewriteMinTokens: undefined,
    })) {
      expect(projection.tokens).toBeLessThanOrEqual(projection.limitTokens);
      const truncate = projection.stages.find((report) => report.name === "truncate");
      // Collapse and truncation leave the request over the trigger ...
      if (projection.rewrite?.rewritten && (truncate?.tokensAfter ?? 0) > projection.triggerTokens) {
        // ... the clearing brings it under: the rewrite fits ...
        expect(projection.rewrite.cause).toBe("fit");
        expect(projection.rewrite.reason).not.toMatch(/LLM compaction instead/);
        expect(projection.tokens).toBeLessThanOrEqual(projection.triggerTokens);
        expect(projection.saved.microcompact).toBeGreaterThan(0);
        const results = projection.messages
          .filter((message) => message.role === "tool")
          .map((m) => String(m.content));
        expect(
          results.filter((content) => content.startsWith("[older result cleared:")).length,
        ).toBeGreaterThan(0);
        for (const content of results.slice(-5)) expect(content).not.toMatch(/^\[older result cleared/);
        // ... and LLM compaction comes only when the cost model finds it cheaper than this rewrite.
        if (projection.needsCompaction) {
          expect(projection.compactionNeed?.need).toBe("cheaper");
          expect(projection.compactionNeed?.expectedSaving).toBeGreaterThan(0);
          expect(projection.reason).toMatch(
            /LLM compaction is cheaper than the deterministic path \(needed to fit/,
          );
        } else expect(projection.compactionNeed).toBeNull();
        found.push(projection);
      }
      // LLM compaction does not run here: the walk ends where it would.
      if (projection.needsCompaction) break;
    }
    return found;
  }

  // Per call (growth g per call, openai prices, 8k: trigger 6,000, compacted ≈ 1,454), the rewrite costs
  // 0.9·resent·g/room + 0.05·(tokens + trigger), compaction g·K + 0.05·(compacted + trigger) with
  // K ≈ 0.71 (the summary call and the compacted request written whole, per token of room it buys).
  // A clearing rewrite resends about all it keeps, the five most recent results among it: it stays the
  // cheaper path when those are short against what each call adds (g), and the long results are older.

  it("a rewrite that clears older results comes instead of LLM compaction when that fits and costs less", () => {
    // Two full-suite runs (~2k tokens each, cleared), then focused runs of 40 lines: the rewrite keeps
    // 1,856 tokens, resends 1,668 for 4,144 of room, g ≈ 490 (per call 571 against compaction's 723).
    const taken = clearingRewrites(history({ suiteRuns: 2, suiteLines: 200, runLines: 40 })).filter(
      (projection) => !projection.needsCompaction,
    );
    expect(taken.length).toBeGreaterThan(0);
  });

  it("LLM compaction the cost model finds cheaper than the clearing rewrite comes instead, and says so", () => {
    // Focused runs of 80 lines only: the rewrite keeps five long results and resends nearly all it keeps
    // for little room. (60 lines were enough while a compaction kept 7 % of the window and a 400-token
    // summary floor; with 5 % and 320 a compaction costs less, and the clearing rewrite at 60 lines wins.)
    const cheaper = clearingRewrites(history({ suiteRuns: 0, suiteLines: 0, runLines: 80 })).filter(
      (projection) => projection.needsCompaction,
    );
    expect(cheaper.length).toBeGreaterThan(0);
  });
});

describe("clearOlderResults", () => {
  const item = (content: string, status: "ok" | "error" = "ok"): ProjectionItem => ({
    message: { role: "tool", tool_call_id: "c", content },
    mark: "raw",
    tokens: estimateMessageTokens({ role: "tool", tool_call_id: "c", content }, tokenizer),
    status,
  });

  it("keeps the most recent results, locked and short ones, and what a failure said (idle gap or rewrite)", () => {
    const long = "x".repeat(400);
    const items = [
      item(`${long}\nError: cannot open config.yaml`, "error"),
      item(long),
      { ...item(long), locked: true },
      item("short"),
      item(long),
    ];
    const idle = clearOlderResults(items, { tokenizer, keep: 1, why: "idle" });
    expect(idle.items.map((result) => result.message.content)).toEqual([
      "[result cleared after idle gap: 431 chars; it failed: Error: cannot open config.yaml]",
      "[result cleared after idle gap: 400 chars]",
      long,
      "short",
      long,
    ]);
    expect(idle.saved).toBe(
      items
        .slice(0, 2)
        .reduce((sum, result, index) => sum + result.tokens - (idle.items[index]?.tokens ?? 0), 0),
    );
    const rewrite = clearOlderResults(items, { tokenizer, keep: 1, why: "rewrite" });
    expect(rewrite.items[1]?.message.content).toBe(
      "[older result cleared: 400 chars; re-run the call if needed]",
    );
    expect(rewrite.removed).toBe("2 tool results cleared (831 chars)");
  });

  it("keeps a failure the ledger sees in a command's output, read in its call's scope", () => {
    const call: ProjectionItem = {
      message: {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "c",
            type: "function",
            function: { name: "bash", arguments: '{"command":"python t.py | tail"}' },
          },
        ],
      },
      mark: "raw",
      tokens: 20,
    };
    const output = `<returncode>0</returncode>\n<output>\n${"step\n".repeat(80)}Traceback (most recent call last):\n  File "t.py", line 3\nKeyError: 'a'\n</output>`;
    const cleared = clearOlderResults([call, item(output), item("x".repeat(400))], {
      tokenizer,
      keep: 1,
      why: "rewrite",
    });
    expect(cleared.items[1]?.message.content).toBe(
      `[older result cleared: ${output.length} chars; it failed: KeyError: 'a'; re-run the call if needed]`,
    );
  });
});
