import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { createClient } from "@longrun/client";
import { afterAll, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import { type ClusterProcess, REPO_ROOT, startProcess } from "./support/distributed-cluster.ts";
import { readThreadEvents } from "./support/distributed-events.ts";

// `longrun follow` as a user runs it, against `longrun start` (sim model), across a server killed and
// started again on the same port: every persisted event is printed once, in order, before and after.

const TOKEN = "follow-test-token-0123456789";
const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function startServer(dataDir: string, port: number): Promise<{ server: ClusterProcess; url: string }> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    LONGRUN_DATA_DIR: dataDir,
    LONGRUN_TOKEN: TOKEN,
  };
  delete env.OPENAI_BASE_URL;
  delete env.OPENAI_API_KEY;
  delete env.VITEST;
  const { process: server, line } = await startProcess("start", env, /API:\s+\S+\/v1/);
  cleanups.push(() => server.kill("SIGKILL"));
  return { server, url: /API:\s+(\S+)\/v1/.exec(line)?.[1] ?? "" };
}

function startFollow(url: string, threadId: string) {
  const child: ChildProcess = spawn(
    process.execPath,
    [join(REPO_ROOT, "packages/cli/bin/longrun.js"), "follow", threadId, "--url", url, "--token", TOKEN],
    { cwd: REPO_ROOT, env: { ...process.env, VITEST: "" }, stdio: ["ignore", "pipe", "pipe"] },
  );
  const stdout: string[] = [];
  const stderr: string[] = [];
  createInterface({ input: child.stdout! }).on("line", (line) => stdout.push(line));
  createInterface({ input: child.stderr! }).on("line", (line) => stderr.push(line));
  cleanups.push(async () => {
    if (child.exitCode === null) {
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      await exited;
    }
  });
  return { child, stdout, stderr };
}

const seqOf = (line: string) => Number(/^#(\d+) /.exec(line)?.[1] ?? Number.NaN);

describe("longrun follow <thread>", () => {
  it("prints steps and compactions live, and resumes after a server restart without a duplicate line", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "longrun-follow-"));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    let { server, url } = await startServer(dataDir, 0);
    const port = Number(new URL(url).port);
    const client = createClient({ baseUrl: url, token: TOKEN, WebSocket: WebSocket as never });
    cleanups.push(async () => client.close());
    const thread = await client.threads.create({
      model: "sim",
      simSteps: 150,
      maxInputTokens: 8_000,
      task: "Survey the project and report.",
    });

    const follow = startFollow(url, thread.id);
    await vi.waitFor(
      () => {
        expect(
          follow.stdout.some((line) => / step \d+: context [\d,]+ tokens of 8,000 tokens/.test(line)),
        ).toBe(true);
        expect(
          follow.stdout.some((line) =>
            / compaction \w+ \(\w+\): [\d,]+ tokens → [\d,]+ tokens, saved [\d,]+ tokens \(\d+ %\)/.test(
              line,
            ),
          ),
        ).toBe(true);
      },
      { timeout: 120_000, interval: 100 },
    );

    // The server is killed mid-run (150 steps; the first compaction comes far earlier), its sockets with
    // it, and comes back on the same port.
    expect(follow.stdout.filter((line) => / run completed/.test(line))).toEqual([]);
    await server.kill("SIGKILL");
    await vi.waitFor(() => expect(follow.stderr.join("\n")).toMatch(/connection lost/), {
      timeout: 30_000,
      interval: 50,
    });
    ({ server, url } = await startServer(dataDir, port));
    await vi.waitFor(() => expect(follow.stderr.join("\n")).toMatch(/reconnected: resuming after #\d+/), {
      timeout: 30_000,
      interval: 50,
    });
    // A second message: the restarted server takes new work as well as finishing the interrupted run.
    const restClient = createClient({ baseUrl: url, token: TOKEN, WebSocket: WebSocket as never });
    cleanups.push(async () => restClient.close());
    await restClient.threads.sendMessage(thread.id, { content: "Go on: list what is left to do." });
    const completed = () => follow.stdout.filter((line) => / run completed/.test(line)).length;
    await vi.waitFor(() => expect(completed()).toBe(2), { timeout: 180_000, interval: 100 });
    const resumedAfter = Number(/resuming after #(\d+)/.exec(follow.stderr.join("\n"))?.[1]);
    // The line after the resume point is the very next event: nothing skipped, nothing repeated.
    const resumedAt = follow.stdout.findIndex((line) => seqOf(line) === resumedAfter);
    expect(seqOf(follow.stdout[resumedAt + 1] ?? "")).toBe(resumedAfter + 1);

    // Every persisted event of the thread, printed exactly once and in order, across the restart.
    const printed = follow.stdout.map(seqOf);
    expect(printed.every((seq) => Number.isInteger(seq))).toBe(true);
    const logged = (await readThreadEvents(restClient, thread.id)).map((event) => event.seq);
    const upTo = printed.at(-1) ?? 0;
    expect(printed).toEqual(logged.filter((seq) => seq <= upTo));
    console.log(
      `[follow] ${printed.length} lines (#${printed[0]}..#${upTo}), resumed after #${resumedAfter}; stderr: ${follow.stderr.join(" | ")}`,
    );
  }, 300_000);
});
