import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { createHarness, type Harness } from "../harness.test-helper.ts";
import { startMaintenance } from "./reconciler.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe("the maintenance loop's log", () => {
  it("says once that passes fail and once that they succeed again, not once per pass", async () => {
    const lines: Array<{ msg: string; reconciler?: string; component?: string }> = [];
    const log = pino({ level: "info" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    harness = await createHarness({ manual: true, log });
    let redisDown = false;
    const maintenance = startMaintenance(harness.deps, harness.runControl, harness.coordinator, {
      intervalMs: 3_600_000,
      // What a pass asks Redis first: while it is unreachable, every pass fails.
      jobsLost: async () => {
        if (redisDown) throw new Error("Connection is closed.");
        return false;
      },
    });
    await maintenance.runOnce();
    redisDown = true;
    for (let pass = 0; pass < 4; pass++) await expect(maintenance.runOnce()).rejects.toThrow("Connection");
    redisDown = false;
    for (let pass = 0; pass < 3; pass++) await maintenance.runOnce();
    await maintenance.stop();

    const reconciler = lines.filter((line) => line.component === "reconciler");
    expect(reconciler.map((line) => [line.reconciler, line.msg])).toEqual([
      ["failing", "reconciler pass failed"],
      ["ok", "reconciler passes succeed again"],
    ]);
  });
});
