import type { ThreadSnapshot } from "@longrun/protocol";
import { describe, expect, it } from "vitest";
import { applyEvents } from "./apply-events.ts";
import { applyMessages, applySnapshot } from "./apply-rest.ts";
import { makeEvent, testProfile, textMessage } from "./test-events.ts";
import { emptyThreadState } from "./thread-state.ts";
import { buildTranscript, runningTools } from "./transcript.ts";

const saved = { collapse: 0, truncate: 0, microcompact: 0 };
const profile = testProfile();

/** A thread whose one run finished at seq 12: what GET /v1/threads/:id/snapshot answers then. */
function finishedSnapshot(): ThreadSnapshot {
  return {
    thread: {
      id: "t1",
      tenantId: "default",
      title: "demo",
      workspaceDir: "/w",
      forkedFromThreadId: null,
      rewoundToThreadId: null,
      modelProfile: profile,
      status: "idle",
      createdAt: 1000,
      updatedAt: 1012,
      agents: [
        {
          id: "a-root",
          threadId: "t1",
          parentAgentId: null,
          name: "root",
          inherit: "fresh",
          forkMessageId: null,
          forkCompactionId: null,
          forkSourceAgentId: null,
          brief: null,
          spawnCallId: null,
          status: "completed",
          createdAt: 1000,
        },
      ],
      runs: [
        {
          id: "r1",
          threadId: "t1",
          agentId: "a-root",
          kind: "message",
          status: "completed",
          error: null,
          createdAt: 1001,
          startedAt: 1002,
          finishedAt: 1012,
          input: null,
        },
      ],
    },
    headSeq: 12,
    activity: [
      {
        agentId: "a-root",
        step: 3,
        tokens: 900,
        maxInputTokens: 8000,
        triggerTokens: 6000,
        measuredSeq: 9,
        measurement: {
          step: 3,
          rawTokens: 900,
          projectedTokens: 900,
          maxInputTokens: 8000,
          triggerTokens: 6000,
          saved,
          needsCompaction: false,
          seq: 9,
          at: 1009,
        },
        tool: null,
        statusSince: 1011,
        lastEventAt: 1012,
        lastEventType: "run.completed",
      },
    ],
    approvals: [],
    at: 1013,
  };
}

/** The same thread's log, as the history read delivers it after the snapshot. */
function history() {
  return [
    makeEvent("thread.status", 1, { status: "running" }),
    makeEvent("run.started", 2, { kind: "message" }, { runId: "r1" }),
    makeEvent("agent.status", 3, { status: "running" }),
    textMessage(4, "m1", 1, "user", "explore"),
    makeEvent("message.completed", 5, {
      messageId: "m2",
      seq: 2,
      role: "assistant",
      content: null,
      toolCalls: [{ id: "c1", type: "function", function: { name: "read_file", arguments: "{}" } }],
    }),
    makeEvent("tool.started", 6, { callId: "c1", name: "read_file", arguments: "{}" }),
    makeEvent("approval.requested", 7, { callId: "c0", name: "run_command", arguments: "{}" }),
    makeEvent("tool.completed", 8, { callId: "c1", name: "read_file", status: "ok", output: "x" }),
    makeEvent("context.measured", 9, {
      step: 3,
      rawTokens: 900,
      projectedTokens: 900,
      maxInputTokens: 8000,
      triggerTokens: 6000,
      saved,
      needsCompaction: false,
    }),
    makeEvent("run.cancelled", 10, { reason: "by hand" }, { runId: "r0" }),
    makeEvent("agent.status", 11, { status: "completed" }),
    makeEvent("run.completed", 12, {}, { runId: "r1" }),
  ];
}

describe("a thread opened from its snapshot", () => {
  it("never shows what the history says before the head: no running status, run, tool or approval", () => {
    const opened = applySnapshot(emptyThreadState("t1"), finishedSnapshot());
    // Part of the history read (up to the tool start): the statuses are still the snapshot's.
    const partway = applyEvents(opened, history().slice(0, 6));
    expect(partway.status ?? partway.restStatus).toBe("idle");
    expect(partway.runs.r1?.status).toBe("completed");
    expect(partway.agents["a-root"]?.status).toBe("completed");
    expect(partway.approvals).toEqual({});
    const all = applyEvents(partway, history().slice(6));
    expect(all.status ?? all.restStatus).toBe("idle");
    expect(runningTools(all, "a-root")).toEqual([]);
    // The snapshot's measurement and the same one from the log are one point.
    expect(all.measurements["a-root"]?.map((point) => point.eventSeq)).toEqual([9]);
    // A run the snapshot did not list (older, cancelled) still leaves its trace.
    expect(all.runs.r0).toMatchObject({ status: "cancelled", reason: "by hand" });
    expect(buildTranscript(all, "a-root").filter((entry) => entry.kind === "run")).toHaveLength(2);
  });

  it("shows the step reached when the snapshot's measurement is an old step-0 one", () => {
    const snapshot = finishedSnapshot();
    const measured = (seq: number, step: number) =>
      makeEvent("context.measured", seq, {
        step,
        rawTokens: 900,
        projectedTokens: 900,
        maxInputTokens: 8000,
        triggerTokens: 6000,
        saved,
        needsCompaction: false,
      });
    const stale = measured(9, 0);
    const activity = snapshot.activity.map((entry) => ({
      ...entry,
      step: 0,
      measurement: entry.measurement && { ...entry.measurement, step: 0, seq: stale.seq, at: stale.at },
    }));
    const opened = applySnapshot(emptyThreadState("t1"), { ...snapshot, activity });
    expect(opened.activity["a-root"]?.step).toBe(0);
    const read = applyEvents(opened, [measured(7, 5), stale]);
    expect(read.measurements["a-root"]?.map((point) => point.step)).toEqual([5, 5]);
    expect(read.activity["a-root"]?.step).toBe(5);
  });

  it("lets events after the head change what it shows", () => {
    const opened = applySnapshot(emptyThreadState("t1"), finishedSnapshot());
    const next = applyEvents(opened, [
      makeEvent("run.started", 13, { kind: "message" }, { runId: "r2" }),
      makeEvent("agent.status", 14, { status: "running" }),
      makeEvent("tool.started", 15, { callId: "c9", name: "grep", arguments: "{}" }),
      makeEvent("run.stuck", 16, { reason: "no progress after 3 recoveries" }, { runId: "r2" }),
    ]);
    expect(next.runs.r2?.status).toBe("stuck");
    expect(next.agents["a-root"]?.status).toBe("running");
    expect(next.activity["a-root"]?.tool?.name).toBe("grep");
  });

  it("a late tool.started from history does not make a completed call look running again", () => {
    const opened = applySnapshot(emptyThreadState("t1"), finishedSnapshot());
    const live = applyEvents(opened, [
      makeEvent("tool.completed", 8, { callId: "c1", name: "read_file", status: "ok", output: "x" }),
    ]);
    const filled = applyEvents(live, [
      makeEvent("tool.started", 6, { callId: "c1", name: "read_file", arguments: "{}" }),
    ]);
    expect(filled.tools.get("c1")?.status).toBe("ok");
  });
});

describe("transcript derivations", () => {
  it("draws a running call once: inside its message, not again as a loose block", () => {
    const state = applyEvents(emptyThreadState("t1"), history().slice(3, 6));
    expect(state.tools.get("c1")?.status).toBe("running");
    expect(runningTools(state, "a-root")).toEqual([]);
  });

  it("greys the messages a compaction removed and says which range", () => {
    const events = [
      textMessage(1, "m1", 1, "user", "explore"),
      textMessage(2, "m2", 2, "assistant", "one"),
      textMessage(3, "m3", 3, "assistant", "two"),
      makeEvent(
        "compaction.completed",
        4,
        {
          compactionKey: "k1",
          compactionId: "c1",
          strategy: "partial",
          trigger: "auto",
          tokensBefore: 7000,
          tokensAfter: 2000,
          saved,
          cutoffMessageId: "m3",
          historyFile: "/w/.longrun/history/t1/a-root.jsonl",
          restored: [],
        },
        { at: 2000 },
      ),
      makeEvent(
        "compaction.skipped",
        5,
        { compactionKey: "k2", trigger: "manual", reason: "nothing to compact" },
        { at: 2001 },
      ),
    ];
    const state = applyEvents(emptyThreadState("t1"), events);
    // Until the server says what the projection took out, nothing is greyed on a guess.
    expect(
      buildTranscript(state, "a-root").flatMap((entry) =>
        entry.kind === "message" ? [entry.compacted] : [],
      ),
    ).toEqual([false, false, false]);
    // The server's coverage: seqs 0–2 summarized, the task (#1) still sent verbatim after the summary.
    const kept = [{ seq: 1, messageId: "m1", why: "pinned" as const }];
    const entries = buildTranscript(state, "a-root", { c1: { fromSeq: 0, toSeq: 2, kept } });
    const messages = entries.flatMap((entry) =>
      entry.kind === "message" ? [[entry.message.id, entry.compacted]] : [],
    );
    expect(messages).toEqual([
      ["m1", false],
      ["m2", true],
      ["m3", false],
    ]);
    const notices = entries.flatMap((entry) => (entry.kind === "compaction" ? [entry] : []));
    expect(notices.map((notice) => [notice.notice.phase, notice.removed])).toEqual([
      ["completed", { fromSeq: 0, toSeq: 2, kept, count: 1, complete: true }],
      ["skipped", null],
    ]);
  });

  it("tells a compaction's range from the server's coverage when its messages were never read", () => {
    // The page read only the log's end (seqs 40 and up): the cutoff message is not in the state.
    const completed = (seq: number, id: string, cutoffSeq: number) =>
      makeEvent(
        "compaction.completed",
        seq,
        {
          compactionKey: `k-${id}`,
          compactionId: id,
          strategy: "partial",
          trigger: "auto",
          tokensBefore: 7000,
          tokensAfter: 2000,
          saved,
          cutoffMessageId: `m-${cutoffSeq}`,
          cutoffSeq,
          historyFile: null,
          restored: [],
        },
        { at: seq },
      );
    const events = [
      completed(20, "c1", 12),
      completed(35, "c2", 30),
      textMessage(41, "m-41", 41, "assistant", "late one"),
      textMessage(42, "m-42", 42, "assistant", "late two"),
      completed(50, "c3", 42),
    ];
    const state = { ...applyEvents(emptyThreadState("t1"), events), messagesReadFrom: { "a-root": 40 } };
    const coverage = {
      c1: { fromSeq: 0, toSeq: 11, kept: [] },
      c2: { fromSeq: 12, toSeq: 29, kept: [] },
      c3: { fromSeq: 30, toSeq: 41, kept: [] },
    };
    const entries = buildTranscript(state, "a-root", coverage);
    const ranges = entries.flatMap((entry) => (entry.kind === "compaction" ? [entry.removed] : []));
    expect(ranges).toEqual([
      { fromSeq: 0, toSeq: 11, kept: [], count: 0, complete: false },
      { fromSeq: 12, toSeq: 29, kept: [], count: 0, complete: false },
      { fromSeq: 30, toSeq: 41, kept: [], count: 1, complete: false },
    ]);
    // Once the whole log is read, the ranges say so.
    const read = buildTranscript({ ...state, messagesReadFrom: { "a-root": -1 } }, "a-root", coverage);
    expect(read.flatMap((entry) => (entry.kind === "compaction" ? [entry.removed?.complete] : []))).toEqual([
      true,
      true,
      true,
    ]);
    const greyed = entries.flatMap((entry) => (entry.kind === "message" ? [entry.compacted] : []));
    expect(greyed).toEqual([true, false]);
  });

  it("records how far back the log is read, only ever further back", () => {
    const stored = (seq: number) => ({
      id: `m-${seq}`,
      threadId: "t1",
      agentId: "a-root",
      seq,
      role: "assistant" as const,
      content: `at ${seq}`,
      tokenCount: 3,
      createdAt: seq,
    });
    let state = applyMessages(emptyThreadState("t1"), "a-root", [stored(401), stored(402)], 400);
    expect(state.messagesReadFrom["a-root"]).toBe(400);
    // A read that ends with no new message still widens what is known to be read.
    state = applyMessages(state, "a-root", [], 0);
    expect(state.messagesReadFrom["a-root"]).toBe(0);
    // A later tail read (after a resync) does not forget that the older part is in the state.
    const again = applyMessages(state, "a-root", [stored(403)], 402);
    expect(again.messagesReadFrom["a-root"]).toBe(0);
    expect(again.messages["a-root"]?.size).toBe(3);
    // Nothing new, nothing wider: the same state.
    expect(applyMessages(again, "a-root", [], 5)).toBe(again);
  });
});
