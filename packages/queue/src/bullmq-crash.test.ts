import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createTestRedis, type TestRedis } from "@longrun/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createBullmqQueue } from "./bullmq-queue.ts";
import type { JobQueue } from "./job-queue.ts";

const fixture = fileURLToPath(new URL("./__fixtures__/crash-worker.ts", import.meta.url));
const packageDir = fileURLToPath(new URL("..", import.meta.url));

/** Resolves with the first stdout line matching `pattern`. */
function lineMatching(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on("line", (line) => {
      if (!pattern.test(line)) return;
      lines.close();
      resolve(line);
    });
    child.once("exit", (code) => reject(new Error(`crash worker exited (${code}) before "${pattern}"`)));
  });
}

describe("bullmq crash recovery", () => {
  let redis: TestRedis | undefined;
  let child: ChildProcess | undefined;
  let queue: JobQueue | undefined;

  afterEach(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await queue?.close({ graceMs: 0 });
    await redis?.cleanup();
  });

  it("retries a job whose worker was SIGKILLed mid-job on another worker", async () => {
    redis = await createTestRedis();
    // `node --import tsx` rather than `npx tsx`: npx and the tsx CLI each fork, and SIGKILL must hit the worker itself.
    // Every worker of a deployment must share the stalled interval: BullMQ's stall check takes a
    // deployment-wide throttle key for that long, so one slow worker would delay recovery for all.
    const settings = { lockDurationMs: 1_500, stalledIntervalMs: 500 };
    const args = [
      fixture,
      redis.url,
      redis.prefix,
      String(settings.lockDurationMs),
      String(settings.stalledIntervalMs),
    ];
    child = spawn(process.execPath, ["--import", "tsx", ...args], {
      cwd: packageDir,
      stdio: ["ignore", "pipe", "inherit"],
    });
    await lineMatching(child, /^ready$/);

    queue = createBullmqQueue({ connection: redis.url, prefix: redis.prefix, ...settings });
    const started = lineMatching(child, /^started /);
    const { id } = await queue.enqueue("agent.step", { threadId: "t", agentId: "a", runId: "r" });
    expect(await started).toBe(`started ${id}`);

    const killedAt = Date.now();
    child.kill("SIGKILL");
    await once(child, "exit");
    expect(child.signalCode).toBe("SIGKILL");
    expect((await queue.stats()).agent.active).toBe(1);

    const attempts: number[] = [];
    const redelivered: boolean[] = [];
    await queue.process({
      "agent.step": async (payload, context) => {
        attempts.push(context.attempt);
        redelivered.push(context.redelivered);
        return `recovered ${payload.runId}`;
      },
    });
    await expect(queue.waitForJob(id, { timeoutMs: 20_000 })).resolves.toEqual({
      status: "completed",
      result: "recovered r",
    });
    const recoveryMs = Date.now() - killedAt;
    // The first run never finished, so it is not a failed attempt; recovery takes about the lock duration.
    expect(attempts).toEqual([1]);
    // …but the handler is told the job was handed out before, so it can expect the dead run's work.
    expect(redelivered).toEqual([true]);
    expect(recoveryMs).toBeLessThan(5_000);
    console.info(`crash recovery: job completed ${recoveryMs} ms after SIGKILL`);
  });
});
