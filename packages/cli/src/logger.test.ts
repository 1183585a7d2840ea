import { describe, expect, it } from "vitest";
import { createLogger, prettyLine } from "./logger.ts";

describe("the process logger", () => {
  it("writes JSON lines at or above its level, with the role and every bound id", () => {
    const lines: string[] = [];
    const log = createLogger({
      level: "info",
      role: "worker",
      destination: { write: (line) => lines.push(line) },
    });
    const job = log.child({ jobId: "j1", threadId: "t1", agentId: "a1", runId: "r1" });
    job.debug({}, "not written");
    job.warn({ failures: 2 }, "compaction summary failed");
    expect(lines).toHaveLength(1);
    const record = JSON.parse(lines[0] as string);
    expect(record).toMatchObject({
      level: 40,
      role: "worker",
      jobId: "j1",
      threadId: "t1",
      agentId: "a1",
      runId: "r1",
      failures: 2,
      msg: "compaction summary failed",
    });
    expect(Date.parse(record.time)).not.toBeNaN();
  });

  it("reads a line back as one short line for a terminal", () => {
    const line = JSON.stringify({
      level: 50,
      time: "2026-12-06T03:10:00.123Z",
      pid: 1,
      role: "serve",
      msg: "request failed",
      status: 500,
      requestId: "q1",
    });
    expect(prettyLine(line)).toBe("03:10:00.123 ERROR request failed status=500 requestId=q1\n");
  });
});
