import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { createHarness, type Harness } from "../harness.test-helper.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

interface LogLine {
  level: number;
  msg: string;
  breaker?: string;
  agentId?: string;
  runId?: string;
  jobId?: string;
  tenantId?: string;
}

describe("the compaction breaker's log", () => {
  it("writes one JSON line per state change through seven summary failures, each with its agent and run", async () => {
    const lines: LogLine[] = [];
    const log = pino({ level: "debug" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    harness = await createHarness({
      simSteps: 400,
      maxInputTokens: 8_000,
      breaker: { threshold: 3, baseCooldownMs: 20, maxCooldownMs: 80 },
      // Each summary retries a 5xx once: 14 failing requests are 7 failed summaries.
      sim: { faults: { summaryFail: 14 } },
      log,
    });
    // Summaries only from the compactions, so the failures come in the order the breaker sees them.
    const { runId, rootAgentId } = await harness.startThread("Explore everything in the project.", {
      backgroundRatio: 0,
    });
    await harness.waitForEvent((event) => event.type === "breaker.closed");
    await harness.runControl.cancel(runId);
    await harness.waitForRunEnd(runId);

    const failures = lines.filter((line) => line.msg === "compaction summary failed");
    expect(failures).toHaveLength(7);
    const changes = lines.filter((line) => line.msg.startsWith("compaction breaker"));
    // Three failures open it; each of the four failed trials after a cooldown reopens it; the eighth
    // summary succeeds on trial and closes it.
    expect(changes.map((line) => line.breaker)).toEqual([
      ...Array.from({ length: 5 }, () => ["open", "half_open"]).flat(),
      "closed",
    ]);
    const opened = harness.events.filter((event) => event.type === "breaker.opened");
    expect(changes.filter((line) => line.breaker === "open")).toHaveLength(opened.length);
    for (const line of [...changes, ...failures]) {
      expect(line).toMatchObject({ agentId: rootAgentId, runId, tenantId: "test" });
      expect(line.jobId).toEqual(expect.any(String));
    }
  }, 60_000);
});
