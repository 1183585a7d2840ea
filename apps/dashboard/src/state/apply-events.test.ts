import type { StoredMessage } from "@longrun/protocol";
import { describe, expect, it } from "vitest";
import { appReducer, initialAppState } from "./app-reducer.ts";
import { applyEvents } from "./apply-events.ts";
import { applyMessages, applyThreadDetail } from "./apply-rest.ts";
import { makeEvent, testProfile, textMessage } from "./test-events.ts";
import { emptyThreadState } from "./thread-state.ts";
import { buildTranscript } from "./transcript.ts";

const saved = { collapse: 0, truncate: 0, microcompact: 0 };

function session() {
  return [
    makeEvent("thread.created", 1, { title: "demo", workspaceDir: "/w", model: "sim" }),
    makeEvent("agent.spawned", 2, { name: "root", parentAgentId: null, inherit: "fresh" }),
    makeEvent("run.started", 3, { kind: "message" }, { runId: "r1" }),
    textMessage(4, "m1", 1, "user", "explore"),
    makeEvent("message.completed", 5, {
      messageId: "m2",
      seq: 2,
      role: "assistant",
      content: null,
      toolCalls: [
        { id: "c1", type: "function", function: { name: "read_file", arguments: '{"path":"a.ts"}' } },
      ],
    }),
    makeEvent("tool.started", 6, { callId: "c1", name: "read_file", arguments: '{"path":"a.ts"}' }),
    makeEvent("tool.completed", 7, { callId: "c1", name: "read_file", status: "ok", output: "x" }),
    makeEvent("message.completed", 8, {
      messageId: "m3",
      seq: 3,
      role: "tool",
      content: "file a.ts",
      toolCallId: "c1",
      toolStatus: "ok",
    }),
  ];
}

describe("applyEvents", () => {
  it("applies a replay after resume without duplicating anything", () => {
    const events = session();
    const once = applyEvents(emptyThreadState("t1"), events);
    // The socket dropped after seq 5; the resumed stream overlaps and repeats seqs 4..8.
    const split = applyEvents(applyEvents(emptyThreadState("t1"), events.slice(0, 5)), events.slice(3));
    const twice = applyEvents(once, events);
    expect(twice).toBe(once);
    expect(buildTranscript(split, "a-root")).toEqual(buildTranscript(once, "a-root"));
    const entries = buildTranscript(once, "a-root");
    expect(entries.map((entry) => entry.key)).toEqual(["message:m1", "message:m2"]);
    const call = entries[1];
    expect(call?.kind === "message" && call.results.c1?.content).toBe("file a.ts");
    expect(once.lastSeq).toBe(8);
  });

  it("does not mutate the state it was given", () => {
    const base = applyEvents(emptyThreadState("t1"), session().slice(0, 4));
    const snapshot = JSON.stringify({ ...base, appliedSeqs: [...base.appliedSeqs] });
    applyEvents(base, session().slice(4));
    expect(JSON.stringify({ ...base, appliedSeqs: [...base.appliedSeqs] })).toBe(snapshot);
  });

  it("ignores events of other threads", () => {
    const state = emptyThreadState("t1");
    expect(
      applyEvents(
        state,
        [textMessage(1, "m1", 1, "user", "hi")].map((e) => ({ ...e, threadId: "t2" })),
      ),
    ).toBe(state);
  });

  it("treats a stored message and its message.completed event as one entry", () => {
    const stored: StoredMessage = {
      id: "m1",
      agentId: "a-root",
      seq: 1,
      role: "user",
      content: "explore",
      tokenCount: 3,
      createdAt: 900,
    };
    const fromRest = applyMessages(emptyThreadState("t1"), "a-root", [stored]);
    const both = applyEvents(fromRest, [
      textMessage(4, "m1", 1, "user", "explore"),
      textMessage(5, "m2", 2, "assistant", "ok"),
    ]);
    const keys = buildTranscript(both, "a-root").map((entry) => entry.key);
    expect(keys).toEqual(["message:m1", "message:m2"]);
    const again = applyMessages(both, "a-root", [stored]);
    expect(buildTranscript(again, "a-root").map((entry) => entry.key)).toEqual(keys);
  });

  it("accumulates streaming text and drops it when the message completes", () => {
    const deltas = [
      makeEvent("message.delta", 4, { messageId: "m2", text: "Hel" }),
      makeEvent("message.delta", 4, { messageId: "m2", text: "lo" }),
    ];
    const streaming = applyEvents(emptyThreadState("t1"), deltas);
    expect(streaming.streaming["a-root"]?.text).toBe("Hello");
    expect(streaming.appliedSeqs.has(4)).toBe(false);
    const done = applyEvents(streaming, [textMessage(5, "m2", 2, "assistant", "Hello")]);
    expect(done.streaming["a-root"]).toBeUndefined();
    const next = applyEvents(done, [makeEvent("message.delta", 5, { messageId: "m4", text: "Next" })]);
    expect(next.streaming["a-root"]?.text).toBe("Next");
  });

  it("merges compaction started, failed and completed into one notice per compaction", () => {
    const completed = {
      compactionKey: "k1",
      compactionId: "cmp1",
      strategy: "partial" as const,
      trigger: "auto" as const,
      tokensBefore: 7000,
      tokensAfter: 1800,
      saved: { collapse: 300, truncate: 0, microcompact: 0 },
      cutoffMessageId: "m2",
      historyFile: ".longrun/history/t1/a-root.jsonl",
      restored: [],
    };
    const state = applyEvents(emptyThreadState("t1"), [
      textMessage(1, "m1", 1, "user", "go"),
      makeEvent("compaction.started", 2, { compactionKey: "k1", trigger: "auto", tokensBefore: 7000 }),
      makeEvent("compaction.failed", 3, {
        compactionKey: "k1",
        trigger: "auto",
        reason: "summary timed out",
        breaker: "closed",
        contextExhausted: false,
      }),
      makeEvent("compaction.completed", 4, completed),
      // The same compaction reported again (a retried job) and a late "started".
      makeEvent("compaction.completed", 5, { ...completed, compactionKey: "k1-retry" }),
      makeEvent("compaction.started", 6, { compactionKey: "k1", trigger: "auto", tokensBefore: 7000 }),
      textMessage(7, "m5", 5, "user", "continue"),
    ]);
    const notices = buildTranscript(state, "a-root").filter((entry) => entry.kind === "compaction");
    expect(notices).toHaveLength(1);
    const notice = notices[0]?.kind === "compaction" ? notices[0].notice : null;
    expect(notice).toMatchObject({
      compactionId: "cmp1",
      phase: "completed",
      tokensBefore: 7000,
      tokensAfter: 1800,
    });
    expect(buildTranscript(state, "a-root").map((entry) => entry.kind)).toEqual([
      "message",
      "compaction",
      "message",
    ]);
  });

  it("keeps the cost figures a completed compaction carries, for its diff", () => {
    const summaryCost = {
      cacheRead: 3000,
      uncached: 700,
      output: 250,
      billed: { openai: 2000, anthropic: 2300 },
      source: "provider" as const,
    };
    const state = applyEvents(emptyThreadState("t1"), [
      makeEvent("compaction.completed", 1, {
        compactionKey: "k1",
        compactionId: "cmp1",
        strategy: "partial",
        trigger: "auto",
        tokensBefore: 7000,
        tokensAfter: 5800,
        saved: { collapse: 0, truncate: 0, microcompact: 0 },
        cutoffMessageId: null,
        historyFile: null,
        restored: [],
        reason: "must",
        expectedSaving: 10121,
        summaryForm: "continuation",
        summaryCost,
      }),
    ]);
    expect(state.compactions.k1?.economy).toEqual({
      reason: "must",
      expectedSaving: 10121,
      summaryForm: "continuation",
      summaryCost,
    });
  });

  it("keeps a failed compaction visible with its attempts", () => {
    const failed = (seq: number) =>
      makeEvent("compaction.failed", seq, {
        compactionKey: "k9",
        trigger: "overflow",
        reason: "summarizer error",
        breaker: "open",
        contextExhausted: true,
      });
    const state = applyEvents(emptyThreadState("t1"), [failed(1), failed(2)]);
    expect(state.compactions.k9).toMatchObject({ phase: "failed", failures: 2, contextExhausted: true });
  });

  it("links a sub-agent to its parent's spawn_agents call from the live event, and keeps a known link", () => {
    const spawned = (seq: number, spawnCallId?: string | null) =>
      makeEvent(
        "agent.spawned",
        seq,
        {
          name: "scout",
          parentAgentId: "a-root",
          inherit: "fresh",
          ...(spawnCallId === undefined ? {} : { spawnCallId }),
        },
        { agentId: "a-scout" },
      );
    const live = applyEvents(emptyThreadState("t1"), [spawned(2, "call-7")]);
    expect(live.agents["a-scout"]?.spawnCallId).toBe("call-7");
    // An event from an older log (no call id) arriving after a snapshot that knew the call keeps it.
    const replayed = applyEvents(live, [spawned(3)]);
    expect(replayed.agents["a-scout"]?.spawnCallId).toBe("call-7");
  });

  it("keeps a run running after an interrupt is asked for, marked, until it is cancelled", () => {
    const asked = applyEvents(emptyThreadState("t1"), [
      makeEvent("run.started", 1, { kind: "message" }, { runId: "r1" }),
      makeEvent("run.interrupt_requested", 2, { reason: "a new message" }, { runId: "r1" }),
    ]);
    expect(asked.runs.r1).toMatchObject({ status: "running", interruptRequestedAt: expect.any(Number) });
    const ended = applyEvents(asked, [
      makeEvent("run.cancelled", 3, { reason: "interrupted" }, { runId: "r1" }),
    ]);
    expect(ended.runs.r1?.status).toBe("cancelled");
  });

  it("tracks agent tree status from events over an older REST read", () => {
    const state = applyEvents(emptyThreadState("t1"), [
      makeEvent("agent.spawned", 1, { name: "root", parentAgentId: null, inherit: "fresh" }),
      makeEvent(
        "agent.spawned",
        2,
        { name: "reader", parentAgentId: "a-root", inherit: "fork", brief: "read" },
        {
          agentId: "a-child",
        },
      ),
      makeEvent("agent.status", 3, { status: "compacting" }, { agentId: "a-child" }),
    ]);
    const detail = {
      id: "t1",
      tenantId: "x",
      title: "demo",
      workspaceDir: "/w",
      forkedFromThreadId: null,
      rewoundToThreadId: null,
      modelProfile: testProfile(),
      status: "running" as const,
      createdAt: 1,
      updatedAt: 2,
      agents: [
        {
          id: "a-child",
          threadId: "t1",
          parentAgentId: "a-root",
          name: "reader",
          inherit: "fork" as const,
          forkMessageId: null,
          forkCompactionId: null,
          forkSourceAgentId: null,
          brief: null,
          spawnCallId: null,
          status: "running" as const,
          createdAt: 5,
        },
        {
          id: "a-late",
          threadId: "t1",
          parentAgentId: "a-root",
          name: "writer",
          inherit: "fresh" as const,
          forkMessageId: null,
          forkCompactionId: null,
          forkSourceAgentId: null,
          brief: null,
          spawnCallId: null,
          status: "waiting_approval" as const,
          createdAt: 6,
        },
      ],
      runs: [],
    };
    const merged = applyThreadDetail(state, detail);
    expect(merged.agents["a-child"]?.status).toBe("compacting");
    expect(merged.agents["a-late"]?.status).toBe("waiting_approval");
    // The REST status is kept apart: the view prefers live events, then the polled thread list.
    expect(merged.status).toBeNull();
    expect(merged.restStatus).toBe("running");
    const live = applyEvents(merged, [makeEvent("thread.status", 4, { status: "waiting" })]);
    expect(live.status).toBe("waiting");
  });

  it("removes an approval once it is resolved", () => {
    const requested = applyEvents(emptyThreadState("t1"), [
      makeEvent(
        "approval.requested",
        1,
        { callId: "c7", name: "write_file", arguments: '{"path":"x"}' },
        { runId: "r1" },
      ),
    ]);
    expect(Object.keys(requested.approvals)).toEqual(["c7"]);
    const resolved = applyEvents(requested, [
      makeEvent("approval.resolved", 2, { callId: "c7", decision: "deny" }),
    ]);
    expect(resolved.approvals).toEqual({});
  });

  it("keeps measurements in seq order when a batch arrives out of order", () => {
    const measured = (seq: number, step: number) =>
      makeEvent("context.measured", seq, {
        step,
        rawTokens: step * 100,
        projectedTokens: step * 90,
        maxInputTokens: 8192,
        triggerTokens: 6144,
        saved,
        needsCompaction: false,
      });
    const state = applyEvents(emptyThreadState("t1"), [
      measured(3, 2),
      measured(1, 1),
      measured(3, 2),
      measured(5, 3),
    ]);
    expect(state.measurements["a-root"]?.map((point) => point.step)).toEqual([1, 2, 3]);
  });

  it("never shows a step lower than the one reached (old measurements said 0 after a compaction)", () => {
    const measured = (seq: number, step: number) =>
      makeEvent("context.measured", seq, {
        step,
        rawTokens: 1000,
        projectedTokens: 900,
        maxInputTokens: 8192,
        triggerTokens: 6144,
        saved,
        needsCompaction: false,
      });
    // As recorded before the fix: 15 (needs compaction), the compaction, then 0 at the same log position.
    const state = applyEvents(emptyThreadState("t1"), [measured(10, 15), measured(12, 0), measured(14, 17)]);
    expect(state.measurements["a-root"]?.map((point) => point.step)).toEqual([15, 15, 17]);
    const replayed = applyEvents(emptyThreadState("t1"), [measured(12, 0), measured(10, 15)]);
    expect(replayed.measurements["a-root"]?.map((point) => point.step)).toEqual([15, 15]);
    expect(state.activity["a-root"]?.step).toBe(17);
    expect(
      applyEvents(emptyThreadState("t1"), [measured(10, 15), measured(12, 0)]).activity["a-root"]?.step,
    ).toBe(15);
  });

  it("records run lifecycle and clears streaming when a run ends", () => {
    const state = applyEvents(emptyThreadState("t1"), [
      makeEvent("run.queued", 1, { kind: "message", position: 0 }, { runId: "r1" }),
      makeEvent("run.started", 2, { kind: "message" }, { runId: "r1" }),
      makeEvent("message.delta", 2, { text: "partial" }),
      makeEvent("run.failed", 3, { error: { code: "internal", message: "boom" } }, { runId: "r1" }),
    ]);
    expect(state.runs.r1).toMatchObject({ status: "failed", kind: "message", error: { message: "boom" } });
    expect(state.streaming).toEqual({});
  });
});

describe("appReducer", () => {
  it("clears half-streamed text when the connection drops and ignores events of a closed thread", () => {
    let state = appReducer(initialAppState, { type: "thread.opened", threadId: "t1" });
    state = appReducer(state, {
      type: "thread.events",
      threadId: "t1",
      events: [makeEvent("message.delta", 1, { text: "half" })],
    });
    expect(state.thread?.streaming["a-root"]?.text).toBe("half");
    state = appReducer(state, { type: "connection", status: "reconnecting" });
    expect(state.connection).toBe("reconnecting");
    expect(state.thread?.streaming).toEqual({});
    const before = state;
    state = appReducer(state, {
      type: "thread.events",
      threadId: "t2",
      events: [textMessage(1, "m", 1, "user", "x")],
    });
    expect(state).toBe(before);
  });
});
