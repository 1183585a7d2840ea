import type { LogFields, Logger } from "@longrun/protocol";
import { describe, expect, it } from "vitest";
import { createRedisHealth } from "./redis-health.ts";

/** A logger that keeps what it is told (the JSON form is pino's, tested in the cli). */
function recordingLogger(lines: Array<{ level: string; fields: LogFields; message: string }>): Logger {
  const at = (level: string) => (fields: LogFields, message: string) =>
    void lines.push({ level, fields, message });
  const logger: Logger = {
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
    child: () => logger,
  };
  return logger;
}

describe("Redis health", () => {
  it("logs one line when Redis goes away and one when it is back, whatever the retries", () => {
    const lines: Array<{ level: string; fields: LogFields; message: string }> = [];
    const health = createRedisHealth(recordingLogger(lines));
    health.ready("bus");
    for (let retry = 0; retry < 5; retry++)
      health.error(retry % 2 ? "bus" : "queue", new Error("connect ECONNREFUSED"));
    expect(health.up).toBe(false);
    health.ready("queue");
    health.ready("bus");
    expect(health.up).toBe(true);
    expect(lines.map((line) => [line.level, line.fields.redis])).toEqual([
      ["error", "down"],
      ["info", "up"],
    ]);
    expect(lines[0]?.message).toContain("ECONNREFUSED");
  });
});
