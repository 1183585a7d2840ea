import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { openStore } from "./open-store.ts";

const WORKER = fileURLToPath(new URL("./__fixtures__/crash-worker.ts", import.meta.url));
const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe("I8: facts survive a crash", () => {
  it("keeps every acknowledged append after the writer is SIGKILLed mid-stream", {
    timeout: 60_000,
  }, async () => {
    const dir = await mkdtemp(join(tmpdir(), "longrun-store-crash-"));
    dirs.push(dir);
    const url = join(dir, "crash.db");
    const child = spawn(process.execPath, ["--import", "tsx", WORKER, url, "agent"], {
      cwd: fileURLToPath(new URL("..", import.meta.url)),
      stdio: ["ignore", "pipe", "inherit"],
    });
    const acked: Array<{ id: string; seq: number }> = [];
    let buffer = "";
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on("exit", (_code, signal) => resolve(signal)),
    );
    await new Promise<void>((resolve) => {
      child.stdout.on("data", (chunk: Buffer) => {
        buffer += chunk.toString();
        const lines = buffer.split("\n");
        buffer = lines.pop() ?? "";
        for (const line of lines) {
          const [, id, seq] = line.split(" ");
          if (id && seq) acked.push({ id, seq: Number(seq) });
        }
        if (acked.length >= 300) resolve();
      });
    });
    child.kill("SIGKILL");
    expect(await exited).toBe("SIGKILL");

    const store = await openStore({ url });
    try {
      const stored = await store.messages.list("agent");
      const storedIds = new Set(stored.map((message) => message.id));
      for (const fact of acked) expect(storedIds.has(fact.id)).toBe(true);
      // Whatever was committed after the last ack is there too, and the log has no holes.
      expect(stored.map((message) => message.seq)).toEqual(stored.map((_, index) => index));
      // The log keeps growing from where it stopped.
      const next = await store.messages.append("agent", { role: "user", content: "after the crash" });
      expect(next.seq).toBe(stored.length);
    } finally {
      await store.close();
    }
  });
});
