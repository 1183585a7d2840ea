import { describe, expect, it } from "vitest";
import { binTimeline, modelTurns, NAV_BINS, type NavMark, stepAtEvent } from "./navigator.ts";
import { measuredData } from "./test-events.ts";
import type { CompactionNotice, Measurement } from "./thread-state.ts";
import type { TranscriptEntry } from "./transcript.ts";
import { foldCompactions, locateEntry } from "./transcript-view.ts";

function measurement(step: number, eventSeq: number): Measurement {
  return { eventSeq, at: eventSeq, ...measuredData(step) };
}

function notice(key: string, at: number): CompactionNotice {
  return {
    key,
    compactionId: key,
    agentId: "a",
    phase: "completed",
    trigger: "auto",
    tokensBefore: 7000,
    failures: 0,
    at,
    eventSeq: at,
  };
}

describe("run navigator", () => {
  it("counts as model turns the measurements whose request was sent, all of them on an older server", () => {
    const cost = {
      cacheRead: 0,
      uncached: 100,
      output: 10,
      billed: { openai: 1, anthropic: 1 },
      source: "estimate",
    };
    const sent = (step: number) => ({ ...measurement(step, step), cost }) as Measurement;
    // Step 9 was measured, then compacted instead of sent; step 9 is measured again and sent.
    const series = [sent(3), sent(6), measurement(9, 9), sent(9), sent(12)];
    expect(modelTurns(series).map((point) => point.step)).toEqual([3, 6, 9, 12]);
    const older = [measurement(3, 3), measurement(6, 6)];
    expect(modelTurns(older)).toHaveLength(2);
  });

  it("places an event at the step of the last measurement before it", () => {
    const series = [measurement(3, 10), measurement(7, 20), measurement(12, 30)];
    expect(stepAtEvent(series, 5)).toBeNull();
    expect(stepAtEvent(series, 21)).toBe(7);
    expect(stepAtEvent(series, 99)).toBe(12);
  });

  it("keeps 1,000 compactions over 4,500 steps in at most NAV_BINS bins, each counted once", () => {
    const series = Array.from({ length: 1500 }, (_, index) => measurement(index * 3, index * 10));
    const marks: NavMark[] = Array.from({ length: 1000 }, (_, index) => ({
      kind: "compaction",
      step: Math.floor(index * 4.4),
      entryKey: `compaction:c${index}`,
      label: "",
    }));
    marks.push({ kind: "error", step: 2000, entryKey: "message:m", label: "" });
    const bins = binTimeline(series, marks);
    expect(bins.length).toBeLessThanOrEqual(NAV_BINS);
    expect(bins.reduce((sum, bin) => sum + bin.compactions, 0)).toBe(1000);
    expect(bins.reduce((sum, bin) => sum + bin.turns, 0)).toBe(1500);
    // A bin with an error jumps to it before its compactions.
    const withError = bins.find((bin) => bin.errors > 0);
    expect(withError?.target?.entryKey).toBe("message:m");
  });
});

describe("folded compaction rows", () => {
  const compaction = (key: string): TranscriptEntry => ({
    kind: "compaction",
    key: `compaction:${key}`,
    notice: notice(key, 1),
    removed: null,
  });
  const message = (id: string): TranscriptEntry => ({
    kind: "message",
    key: `message:${id}`,
    message: { id, agentId: "a", seq: 1, role: "user", content: "hi", at: 1 },
    results: {},
    compacted: false,
  });

  it("folds two or more notices in a row into one row, and unfolds the rows asked for", () => {
    const entries = [compaction("c1"), compaction("c2"), compaction("c3"), message("m1"), compaction("c4")];
    const folded = foldCompactions(entries, new Set());
    expect(folded.map((entry) => entry.kind)).toEqual(["compactions", "message", "compaction"]);
    expect(locateEntry(folded, "compaction:c2")).toEqual({ index: 0, folded: "compactions:compaction:c1" });
    const unfolded = foldCompactions(entries, new Set(["compactions:compaction:c1"]));
    expect(unfolded).toHaveLength(5);
    expect(locateEntry(unfolded, "compaction:c2")).toEqual({ index: 1, folded: null });
  });
});
