import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import WebSocket from "ws";

const REPO = fileURLToPath(new URL("../..", import.meta.url));

interface Started {
  child: ChildProcess;
  url: string;
  token: string;
  output: () => string;
}

/** Runs `longrun start` as a user would (PORT=0) and reads the URL and token it prints. */
function startCli(dataDir: string): Promise<Started> {
  const child = spawn(process.execPath, ["packages/cli/bin/longrun.js", "start"], {
    cwd: REPO,
    env: { ...process.env, PORT: "0", LONGRUN_DATA_DIR: dataDir, LONGRUN_TOKEN: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const url = output.match(/API:\s+(http:\/\/[\d.]+:\d+)\/v1/)?.[1];
      const token = output.match(/token:\s+(\S+)/)?.[1];
      if (url && token) resolve({ child, url, token, output: () => output });
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on("exit", (code) => reject(new Error(`longrun start exited with ${code}:\n${output}`)));
  });
}

function stop(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    child.once("exit", (code) => resolve(code));
    child.kill("SIGTERM");
  });
}

describe("`longrun start` smoke test (a subprocess, as after npm install && npm start)", () => {
  let dataDir = "";
  let started: Started | null = null;

  afterAll(async () => {
    if (started) await stop(started.child);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("prints a URL and a token; curl-style calls create a thread and a message; events arrive on a socket", async () => {
    dataDir = await mkdtemp(join(tmpdir(), "longrun-start-"));
    started = await startCli(dataDir);
    const { url, token } = started;
    expect(started.output()).toMatch(/dashboard: http:\/\/[\d.]+:\d+\/\?token=/);
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };

    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    const created = await fetch(`${url}/v1/threads`, {
      method: "POST",
      headers,
      body: JSON.stringify({ model: "sim", simSteps: 3 }),
    });
    expect(created.status).toBe(201);
    const thread = (await created.json()) as { id: string };

    const socket = new WebSocket(`${url.replace("http", "ws")}/v1/ws`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const frames: { type: string; event?: { type: string; seq: number; runId?: string } }[] = [];
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("error", reject);
    });
    const subscribed = new Promise<void>((resolve) => {
      socket.on("message", (data) => {
        const frame = JSON.parse(String(data)) as (typeof frames)[number];
        frames.push(frame);
        if (frame.type === "subscribed") resolve();
      });
    });
    socket.send(JSON.stringify({ type: "subscribe", id: "s1", threadId: thread.id }));
    await subscribed;

    const posted = await fetch(`${url}/v1/threads/${thread.id}/messages`, {
      method: "POST",
      headers,
      body: JSON.stringify({ content: "Have a look at the workspace." }),
    });
    expect(posted.status).toBe(202);
    const { runId } = (await posted.json()) as { runId: string };
    const completed = await new Promise<number>((resolve) => {
      const check = () => {
        const done = frames.find(
          (frame) => frame.event?.type === "run.completed" && frame.event.runId === runId,
        );
        if (done?.event) resolve(done.event.seq);
      };
      check();
      socket.on("message", check);
    });
    socket.close();
    const events = frames.flatMap((frame) => (frame.type === "event" && frame.event ? [frame.event] : []));
    const types = new Set(events.map((event) => event.type));
    for (const type of [
      "run.started",
      "message.completed",
      "tool.started",
      "tool.completed",
      "run.completed",
    ])
      expect(types).toContain(type);
    const seqs = events.filter((event) => event.type !== "message.delta").map((event) => event.seq);
    expect(seqs).toEqual(seqs.map((_, index) => (seqs[0] ?? 0) + index));
    // run.completed commits with the status changes that end the run; those may follow it.
    expect(seqs).toContain(completed);

    // A second start on the same data dir keeps the token (stored in the data dir on first start).
    expect(await stop(started.child)).toBe(0);
    started = await startCli(dataDir);
    expect(started.token).toBe(token);
    const list = await fetch(`${started.url}/v1/threads`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await list.json()) as { threads: { id: string }[] }).threads.map((listed) => listed.id)).toEqual(
      [thread.id],
    );
  }, 120_000);
});
