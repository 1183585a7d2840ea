import type { CompactionCoverage, LongrunEvent, StoredMessage } from "@longrun/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyEvents } from "./apply-events.ts";
import { applyMessages } from "./apply-rest.ts";
import { bySeq, MessageLog } from "./message-log.ts";
import { type MarksMemo, navigatorMarks } from "./navigator.ts";
import { compactionNotices } from "./removed-ranges.ts";
import { makeEvent, measuredData, textMessage } from "./test-events.ts";
import {
  emptyThreadState,
  type ThreadState,
  type ToolActivity,
  type TranscriptMessage,
} from "./thread-state.ts";
import { ToolCalls } from "./tool-calls.ts";
import {
  buildTranscript,
  runningCalls,
  runningTools,
  type TranscriptBuild,
  updateTranscript,
} from "./transcript.ts";

const AGENT = "a-root";
const saved = { collapse: 0, truncate: 0, microcompact: 0 };

/** What happens next in a thread, drawn at random; turned into events by `toEvents`. */
type Step =
  | { kind: "assistant"; calls: number; seq: number; at: number }
  | { kind: "result"; call: number; seq: number; at: number; status: "ok" | "error" }
  | { kind: "user"; seq: number; at: number }
  | { kind: "redeliver"; message: number; at: number }
  | { kind: "compaction"; key: number; id: number; phase: "started" | "completed" | "failed"; at: number }
  | {
      kind: "run";
      run: number;
      end: "completed" | "failed" | "cancelled" | null;
      compact: boolean;
      at: number;
    }
  | { kind: "tool-started"; call: number; at: number }
  | { kind: "other-agent"; seq: number; at: number }
  /** A measurement of the agent's context; `late`: it arrives a batch after the events that follow it. */
  | { kind: "measured"; step: number; late: boolean; at: number }
  | { kind: "read-earlier"; seqs: number[]; readFrom: number };

const at = fc.integer({ min: 0, max: 400 });
const seq = fc.integer({ min: 0, max: 120 });
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant("assistant" as const), calls: fc.integer({ min: 0, max: 3 }), seq, at }),
  fc.record({
    kind: fc.constant("result" as const),
    call: fc.integer({ min: 0, max: 40 }),
    seq,
    at,
    status: fc.constantFrom("ok" as const, "error" as const),
  }),
  fc.record({ kind: fc.constant("user" as const), seq, at }),
  fc.record({ kind: fc.constant("redeliver" as const), message: fc.integer({ min: 0, max: 40 }), at }),
  fc.record({
    kind: fc.constant("compaction" as const),
    key: fc.integer({ min: 0, max: 6 }),
    id: fc.integer({ min: 0, max: 6 }),
    phase: fc.constantFrom("started" as const, "completed" as const, "failed" as const),
    at,
  }),
  fc.record({
    kind: fc.constant("run" as const),
    run: fc.integer({ min: 0, max: 4 }),
    end: fc.constantFrom(null, "completed" as const, "failed" as const, "cancelled" as const),
    compact: fc.boolean(),
    at,
  }),
  fc.record({ kind: fc.constant("tool-started" as const), call: fc.integer({ min: 0, max: 40 }), at }),
  fc.record({ kind: fc.constant("other-agent" as const), seq, at }),
  fc.record({ kind: fc.constant("measured" as const), step: seq, late: fc.boolean(), at }),
  fc.record({
    kind: fc.constant("read-earlier" as const),
    seqs: fc.array(fc.integer({ min: 0, max: 120 }), { maxLength: 6 }),
    readFrom: fc.integer({ min: -1, max: 60 }),
  }),
);

/** Replays steps against a thread state, in the batches given, as the page applies them. */
class Thread {
  state: ThreadState = emptyThreadState("t1");
  private eventSeq = 0;
  private messages = 0;
  private calls = 0;
  private readonly sent: { id: string; seq: number; role: "user" | "assistant" }[] = [];

  /** Late measurements, applied with the next batch. */
  private held: LongrunEvent[] = [];

  apply(steps: readonly Step[]): void {
    const events: LongrunEvent[] = this.held.splice(0);
    for (const next of steps) {
      if (next.kind === "read-earlier") {
        this.state = applyEvents(this.state, events.splice(0));
        this.readEarlier(next.seqs, next.readFrom);
      } else events.push(...this.toEvents(next));
    }
    this.state = applyEvents(this.state, events);
  }

  private event(...args: Parameters<typeof makeEvent>): LongrunEvent {
    return makeEvent(args[0], args[1], args[2], args[3]);
  }

  private toEvents(next: Exclude<Step, { kind: "read-earlier" }>): LongrunEvent[] {
    const seq = ++this.eventSeq;
    const when = { at: next.at };
    switch (next.kind) {
      case "assistant": {
        const id = `m${this.messages++}`;
        const toolCalls = Array.from({ length: next.calls }, () => ({
          id: `c${this.calls++}`,
          type: "function" as const,
          function: { name: "run_command", arguments: "{}" },
        }));
        this.sent.push({ id, seq: next.seq, role: "assistant" });
        return [
          this.event(
            "message.completed",
            seq,
            { messageId: id, seq: next.seq, role: "assistant", content: id, toolCalls },
            when,
          ),
        ];
      }
      case "result":
        // A result may name a call not seen yet (it arrives before its call) or never seen.
        return [
          this.event(
            "message.completed",
            seq,
            {
              messageId: `m${this.messages++}`,
              seq: next.seq,
              role: "tool",
              content: "out",
              toolCallId: `c${next.call}`,
              toolStatus: next.status,
            },
            when,
          ),
        ];
      case "user": {
        const id = `m${this.messages++}`;
        this.sent.push({ id, seq: next.seq, role: "user" });
        return [{ ...textMessage(seq, id, next.seq, "user", "go"), at: next.at }];
      }
      case "redeliver": {
        // The same message delivered again under another event (a replayed page): a new object.
        const known = this.sent[next.message % Math.max(1, this.sent.length)];
        if (!known) return [];
        return [{ ...textMessage(seq, known.id, known.seq, known.role, known.id), at: next.at }];
      }
      case "compaction": {
        const data = { compactionKey: `k${next.key}`, trigger: "auto" as const, tokensBefore: 7000 };
        if (next.phase === "started") return [this.event("compaction.started", seq, data, when)];
        if (next.phase === "failed")
          return [
            this.event(
              "compaction.failed",
              seq,
              { ...data, reason: "timed out", breaker: "closed", contextExhausted: false },
              when,
            ),
          ];
        return [
          this.event(
            "compaction.completed",
            seq,
            {
              ...data,
              compactionId: `cmp${next.id}`,
              strategy: "partial",
              tokensAfter: 1800,
              saved,
              cutoffMessageId: null,
              restored: [],
            },
            when,
          ),
        ];
      }
      case "run": {
        const runId = `r${next.run}`;
        const kind = next.compact ? ("compact" as const) : ("message" as const);
        if (next.end === null) return [this.event("run.started", seq, { kind }, { runId, at: next.at })];
        const data =
          next.end === "failed"
            ? { error: { code: "model_error", message: "down" } }
            : next.end === "cancelled"
              ? { reason: "user" }
              : {};
        return [
          this.event("run.queued", seq, { kind }, { runId, at: next.at }),
          this.event(`run.${next.end}`, ++this.eventSeq, data as never, { runId, at: next.at + 1 }),
        ];
      }
      case "tool-started":
        return [
          this.event(
            "tool.started",
            seq,
            { callId: `c${next.call}`, name: "run_command", arguments: "{}" },
            when,
          ),
        ];
      case "measured": {
        const event = makeEvent("context.measured", seq, measuredData(next.step), when);
        if (!next.late) return [event];
        this.held.push(event);
        return [];
      }
      case "other-agent":
        return [
          {
            ...textMessage(seq, `o${this.messages++}`, next.seq, "user", "elsewhere", "a-other"),
            at: next.at,
          },
        ];
    }
  }

  /** An earlier part of the log read over REST: known messages as new objects, and the read's floor. */
  private readEarlier(seqs: readonly number[], readFrom: number): void {
    const stored = seqs.map(
      (messageSeq, index): StoredMessage => ({
        id: `e${messageSeq}-${index}`,
        agentId: AGENT,
        seq: messageSeq,
        role: "user",
        content: "earlier",
        tokenCount: 1,
        createdAt: messageSeq,
      }),
    );
    this.state = applyMessages(this.state, AGENT, stored, readFrom);
  }
}

/** Coverage the server gave for some of the compactions (others not read yet). */
const coverageArb: fc.Arbitrary<Record<string, CompactionCoverage>> = fc.dictionary(
  fc.integer({ min: 0, max: 6 }).map((id) => `cmp${id}`),
  fc.record({
    fromSeq: fc.integer({ min: 0, max: 60 }),
    toSeq: fc.integer({ min: -1, max: 120 }),
    kept: fc.array(
      fc.record({
        seq: fc.integer({ min: 0, max: 20 }),
        messageId: fc.constant("m0"),
        why: fc.constantFrom("system" as const, "pinned" as const),
      }),
      { maxLength: 2 },
    ),
  }),
);

describe("incremental transcript", () => {
  // A property over hundreds of random threads: on a loaded machine it takes longer than vitest's 5 s default.
  it("equals a full rebuild after every batch, whatever the events and their order", {
    timeout: 60_000,
  }, () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(step, { maxLength: 8 }), { minLength: 1, maxLength: 25 }),
        fc.array(coverageArb, { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 0, max: 3 }),
        (batches, coverages, staleEvery) => {
          const thread = new Thread();
          const builds: TranscriptBuild[] = [];
          let previous: TranscriptBuild | null = null;
          const marks: MarksMemo = { current: null };
          batches.forEach((batch, index) => {
            thread.apply(batch);
            const coverage = coverages[index % coverages.length] ?? {};
            // Now and then from an older build (a render React threw away): only less is reused.
            const base = staleEvery > 0 && index % (staleEvery + 2) === 0 ? (builds[0] ?? null) : previous;
            const next = updateTranscript(base, thread.state, AGENT, coverage);
            const full = buildTranscript(thread.state, AGENT, coverage);
            expect(next.entries).toEqual(full);
            expect(runningCalls(thread.state.tools, AGENT, next.callIds)).toEqual(
              runningTools(thread.state, AGENT),
            );
            // The calls kept apart as running are those whose latest version runs.
            expect(thread.state.tools.running()).toEqual(
              Object.values(thread.state.tools.toJSON()).filter((tool) => tool.status === "running"),
            );
            // The failures the build keeps give the navigator the marks all entries give it.
            const notices = compactionNotices(thread.state, AGENT);
            // Made on the marks of the batch before, they equal marks made afresh.
            expect(navigatorMarks(thread.state, AGENT, notices, next.failed, marks)).toEqual(
              navigatorMarks(thread.state, AGENT, notices, full),
            );
            builds.push(next);
            previous = next;
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it("keeps every unchanged entry as the same object when newer messages stream in", () => {
    const thread = new Thread();
    const steps: Step[] = [];
    for (let index = 0; index < 40; index++) {
      steps.push({ kind: "assistant", calls: 1, seq: index * 2, at: index * 10 });
      steps.push({ kind: "result", call: index, seq: index * 2 + 1, at: index * 10 + 5, status: "ok" });
    }
    steps.push({ kind: "compaction", key: 1, id: 1, phase: "completed", at: 405 });
    thread.apply(steps);
    const coverage = { cmp1: { fromSeq: 0, toSeq: 39, kept: [] } };
    const before = updateTranscript(null, thread.state, AGENT, coverage);
    // One more turn: its call, then (next batch) its result.
    thread.apply([{ kind: "assistant", calls: 1, seq: 80, at: 410 }]);
    const call = updateTranscript(before, thread.state, AGENT, coverage);
    expect(call.entries.slice(0, before.entries.length)).toEqual(before.entries);
    call.entries.slice(0, before.entries.length).forEach((entry, index) => {
      expect(entry).toBe(before.entries[index]);
    });
    expect(call.entries).toHaveLength(before.entries.length + 1);
    thread.apply([{ kind: "result", call: 40, seq: 81, at: 415, status: "error" }]);
    const result = updateTranscript(call, thread.state, AGENT, coverage);
    expect(result.entries).toEqual(buildTranscript(thread.state, AGENT, coverage));
    // Only the entry whose call got its result is new.
    const changed = result.entries.filter((entry, index) => entry !== call.entries[index]);
    expect(changed.map((entry) => entry.key)).toEqual(["message:m80"]);
  });
});

describe("message log", () => {
  const message = (id: number, seq: number): TranscriptMessage => ({
    id: `m${id}`,
    agentId: AGENT,
    seq,
    role: id % 3 === 0 ? "tool" : "assistant",
    content: `${id}@${seq}`,
    at: seq,
    ...(id % 3 === 0
      ? { toolCallId: `c${id % 5}` }
      : {
          toolCalls: [
            { id: `c${id % 5}`, type: "function" as const, function: { name: "f", arguments: "{}" } },
          ],
        }),
  });
  it("is the merged messages in seq order, whichever log each batch is put into, and never changes a log", {
    timeout: 60_000,
  }, () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            // Which earlier log the batch goes into (0: the newest), and its messages (id, seq).
            base: fc.integer({ min: 0, max: 3 }),
            messages: fc.array(fc.tuple(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 0, max: 60 })), {
              maxLength: 5,
            }),
          }),
          { maxLength: 20 },
        ),
        (batches) => {
          const logs: { log: MessageLog; all: Map<string, TranscriptMessage> }[] = [
            { log: MessageLog.empty, all: new Map() },
          ];
          for (const batch of batches) {
            const base = logs[Math.max(0, logs.length - 1 - batch.base)]!;
            const put = batch.messages.map(([id, seq]) => message(id, seq));
            const all = new Map(base.all);
            for (const item of put) all.set(item.id, item);
            logs.push({ log: base.log.with(put), all });
          }
          for (const { log, all } of logs) {
            const expected = [...all.values()].sort(bySeq);
            expect([...log]).toEqual(expected);
            for (const item of expected) expect(log.get(item.id)).toBe(item);
            for (let call = 0; call < 5; call++) {
              const id = `c${call}`;
              expect(log.callers(id).map((index) => log.at(index)!.id)).toEqual(
                expected
                  .filter((item) => item.toolCalls?.some((made) => made.id === id))
                  .map((item) => item.id),
              );
              expect(log.answers(id).map((index) => log.at(index)!.id)).toEqual(
                expected.filter((item) => item.toolCallId === id).map((item) => item.id),
              );
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("tool calls", () => {
  it("hold each call's latest version, whichever earlier calls each batch goes on from, and never change", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            base: fc.integer({ min: 0, max: 3 }),
            calls: fc.array(fc.tuple(fc.integer({ min: 0, max: 8 }), fc.boolean()), { maxLength: 4 }),
          }),
          { maxLength: 20 },
        ),
        (batches) => {
          const made: { calls: ToolCalls; all: Map<string, ToolActivity> }[] = [
            { calls: ToolCalls.empty, all: new Map() },
          ];
          batches.forEach((batch, index) => {
            const base = made[Math.max(0, made.length - 1 - batch.base)]!;
            const put = batch.calls.map(
              ([call, running]): ToolActivity => ({
                callId: `c${call}`,
                agentId: AGENT,
                name: `v${index}`,
                arguments: "{}",
                status: running ? "running" : "ok",
              }),
            );
            const all = new Map(base.all);
            for (const tool of put) all.set(tool.callId, tool);
            made.push({ calls: base.calls.with(put), all });
          });
          for (const { calls, all } of made) {
            for (let call = 0; call < 9; call++) expect(calls.get(`c${call}`)).toBe(all.get(`c${call}`));
            expect(calls.running()).toEqual([...all.values()].filter((tool) => tool.status === "running"));
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("measurement series", () => {
  it("equals the sorted series with steps that never go back, however its batches arrive", {
    timeout: 60_000,
  }, () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 200 }), { minLength: 1, maxLength: 40 }),
        fc.array(fc.integer({ min: 0, max: 50 }), { minLength: 40, maxLength: 40 }),
        fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 40 }),
        (seqs, steps, sizes) => {
          const events = seqs.map((eventSeq, index) =>
            makeEvent("context.measured", eventSeq, measuredData(steps[index] ?? 0)),
          );
          let state = emptyThreadState("t1");
          let offset = 0;
          for (let index = 0; offset < events.length; index++) {
            const size = sizes[index % sizes.length] ?? 1;
            // Each batch applied twice: a replay changes nothing.
            const batch = events.slice(offset, offset + size);
            state = applyEvents(applyEvents(state, batch), batch);
            offset += size;
          }
          let reached = Number.NEGATIVE_INFINITY;
          const expected = [...seqs]
            .sort((left, right) => left - right)
            .map((eventSeq) => {
              reached = Math.max(reached, steps[seqs.indexOf(eventSeq)] ?? 0);
              return { eventSeq, step: reached };
            });
          expect((state.measurements[AGENT] ?? []).map(({ eventSeq, step }) => ({ eventSeq, step }))).toEqual(
            expected,
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});
