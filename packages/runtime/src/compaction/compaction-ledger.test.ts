import {
  LEDGER_HEADER,
  ledgerBudgetTokens,
  ledgerSources,
  summaryTextOf,
  updateLedger,
  workingFiles,
} from "@longrun/compaction";
import { type ChatMessage, contentText, type EventOf } from "@longrun/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { loadAgentContext } from "../context/agent-context.ts";
import { projectContext } from "../context/projection.ts";
import { createHarness, type Harness } from "../harness.test-helper.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** Runs pending jobs until `count` compactions completed (or the run ends). */
async function runUntilCompactions(current: Harness, count: number) {
  for (let guard = 0; guard < 2_000; guard++) {
    const done = current.events.filter((event) => event.type === "compaction.completed").length;
    if (done >= count || current.pending.length === 0) return;
    await current.runNext();
  }
}

describe("the working-state ledger at runtime", () => {
  it("rides in the summary message and the compaction event, derived from the compacted facts alone", async () => {
    harness = await createHarness({ simSteps: 40, maxInputTokens: 8_000, manual: true });
    // Every compaction makes its own summary call here (no background summary: see
    // background-compaction.test.ts), so the summary requests below are the compactions'.
    const { rootAgentId } = await harness.startThread("Survey the inventory project and keep notes.", {
      backgroundRatio: 0,
    });
    await runUntilCompactions(harness, 2);

    const events = harness.events.filter(
      (event): event is EventOf<"compaction.completed"> => event.type === "compaction.completed",
    );
    expect(events.length).toBe(2);
    const compactions = await harness.store.compactions.list(rootAgentId);
    const facts = await harness.store.messages.list(rootAgentId, { afterSeq: -1 });
    let previous = null;
    for (const [index, compaction] of compactions.entries()) {
      const ledger = compaction.ledger;
      expect(ledger).toBeDefined();
      if (!ledger) return;
      // Deterministic: the compacted facts folded into the previous ledger give the stored one.
      const start = index === 0 ? 0 : (compactions[index - 1]?.cutoffIndex ?? 0);
      const compacted = facts.filter(
        (fact) => fact.seq >= start && fact.seq < compaction.cutoffIndex && fact.role !== "system",
      );
      const state = await harness.store.agentState.get(rootAgentId);
      const rebuilt = updateLedger({
        previous,
        messages: ledgerSources(compacted),
        state: { plan: ledger.plan, todos: ledger.todos, pendingApprovals: state.pendingApprovals },
      });
      expect(rebuilt).toEqual(ledger);
      previous = ledger;
      expect(events[index]?.data.ledger).toEqual(ledger);

      // Its own block after the summarizer's text, within its budget; the summarizer never sees it.
      const text = contentText(compaction.summaryMessage.content);
      const block = text.slice(text.indexOf(LEDGER_HEADER));
      expect(text.indexOf(LEDGER_HEADER)).toBeGreaterThan(0);
      expect(harness.deps.tokenizer.count(block)).toBeLessThanOrEqual(
        ledgerBudgetTokens({ maxInputTokens: 8_000 }) + 30,
      );
      expect(summaryTextOf(compaction.summaryMessage)).not.toContain(LEDGER_HEADER);
      // Restoration re-read files the ledger says the agent was working on (one view).
      const working = workingFiles(ledger).map((file) => file.path);
      for (const item of compaction.restored) if (item.kind === "file") expect(working).toContain(item.path);
    }
    // The sim agent reads and writes files: the ledger names them.
    expect(previous?.readFiles.length).toBeGreaterThan(0);

    // A summary request adds no ledger of its own (the summary must not depend on it). The first one
    // continues a request without any; a later one continues the agent's request, whose summary message
    // carries the previous ledger in the cached prefix: its instruction says not to copy it.
    const summaryRequests = harness.sim.log.entries.filter((entry) => entry.summary);
    expect(summaryRequests.length).toBe(2);
    for (const [index, entry] of summaryRequests.entries()) {
      const body = entry.body as { messages: ChatMessage[] };
      const instruction = contentText(body.messages.at(-1)?.content ?? null);
      expect(instruction).not.toContain(LEDGER_HEADER);
      expect(instruction).toMatch(/"Working state" block .* do not copy them/);
      const ledgers = JSON.stringify(body.messages).split(LEDGER_HEADER).length - 1;
      expect(ledgers).toBe(index === 0 ? 0 : 1);
    }
    // Nor does the summarizer's text stored in a compaction.
    for (const compaction of compactions) {
      expect(summaryTextOf(compaction.summaryMessage)).not.toContain("Working state");
    }

    // The API's context view carries the ledger with the compaction in force.
    const context = await loadAgentContext(harness.deps, rootAgentId);
    expect(context.compaction?.ledger).toEqual(previous);
    const projection = projectContext(harness.deps, context);
    const summary = projection.messages[projection.marks.indexOf("summary")];
    expect(contentText(summary?.content ?? null)).toContain(LEDGER_HEADER);
    // The plan and TODOs are in the ledger, not restored a second time.
    expect(
      projection.messages.some((message) =>
        contentText(message.content).startsWith("[Restored after compaction: active plan"),
      ),
    ).toBe(false);
  }, 240_000);
});
