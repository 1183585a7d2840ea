import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createToolRegistry } from "./registry.ts";
import { createTestWorkspace, type TestWorkspace } from "./test-workspace.ts";

let ws: TestWorkspace;
beforeEach(async () => {
  ws = await createTestWorkspace();
});
afterEach(async () => {
  await ws.cleanup();
});

const run = (args: unknown, options: { outputLimit?: number; signal?: AbortSignal } = {}) =>
  createToolRegistry({ outputLimit: options.outputLimit }).execute(
    { id: "cmd", name: "run_command", arguments: JSON.stringify(args) },
    ws.context,
    options.signal,
  );

// A killed process whose parent is gone may linger as a zombie until PID 1 reaps it; that counts as dead.
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/^\d+ \(.*\) [ZX]/.test(stat);
  } catch {
    return false;
  }
}

describe("run_command", () => {
  it("runs in the workspace and reports the exit code", async () => {
    await ws.write("hello.txt", "hi there\n");
    const ok = await run({ command: "pwd && cat hello.txt" });
    expect(ok.status).toBe("ok");
    expect(ok.output).toMatch(/workspace\nhi there\n\[exit code: 0\]$/);
    const failed = await run({ command: "echo oops >&2; exit 3" });
    expect(failed).toEqual({ status: "error", output: "oops\n[exit code: 3]" });
  });

  it("does not pass the server's secrets to commands", async () => {
    process.env.LONGRUN_TEST_SECRET = "sk-should-not-leak";
    try {
      const result = await run({ command: "env" });
      expect(result.output).not.toContain("sk-should-not-leak");
      expect(result.output).toContain("PATH=");
    } finally {
      delete process.env.LONGRUN_TEST_SECRET;
    }
  });

  it("kills the whole process group on timeout", async () => {
    const started = Date.now();
    // The background sleep is a grandchild: it must die with the group, not outlive the tool.
    const result = await run({ command: "sleep 30 & echo $! > bg.pid; echo started; wait", timeoutMs: 300 });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result.status).toBe("error");
    expect(result.output).toMatch(/started\n\[timed out after 300 ms; process group killed\]/);
    const pid = Number(readFileSync(`${ws.dir}/bg.pid`, "utf8").trim());
    expect(pid).toBeGreaterThan(0);
    await expect.poll(() => alive(pid)).toBe(false);
  });

  it("bounds output, keeping head and tail", async () => {
    const result = await run(
      { command: "i=0; while [ $i -lt 20000 ]; do echo line$i; i=$((i+1)); done" },
      { outputLimit: 2_000 },
    );
    expect(result.status).toBe("ok");
    expect(result.output.length).toBeLessThanOrEqual(2_000);
    expect(result.output).toMatch(/^line0\nline1\n/);
    expect(result.output).toMatch(/output cut: \d+ of \d+ characters omitted/);
    expect(result.output).toMatch(/line19999\n\[exit code: 0\]$/);
  });

  it("is cancelled by the signal", async () => {
    const controller = new AbortController();
    const pending = run({ command: "echo waiting; sleep 30" }, { signal: controller.signal });
    setImmediate(() => controller.abort());
    const result = await pending;
    expect(result.status).toBe("cancelled");
  });

  describe("leaves no process behind", () => {
    // A background child, one that left the process group with setsid, and a double fork whose
    // grandchild is orphaned in a new session: none may outlive the call.
    const escapers =
      "sleep 30 & echo $! > bg.pid; setsid sleep 30 & echo $! > setsid.pid; " +
      "setsid sh -c 'sleep 30 & echo $! > double.pid'; echo started";
    const pids = () =>
      ["bg.pid", "setsid.pid", "double.pid"].map((file) =>
        Number(readFileSync(path.join(ws.dir, file), "utf8").trim()),
      );

    it("after a normal exit", async () => {
      const result = await run({ command: escapers });
      expect(result.status).toBe("ok");
      expect(result.output).toMatch(/^started\n\[exit code: 0\]\n\[killed 3 processes it left running\]$/);
      const started = pids();
      expect(started.every((pid) => pid > 0)).toBe(true);
      expect(started.filter(alive)).toEqual([]);
    });

    it("after a timeout", async () => {
      const result = await run({ command: `${escapers}; sleep 30`, timeoutMs: 500 });
      expect(result.output).toMatch(/timed out after 500 ms/);
      expect(pids().filter(alive)).toEqual([]);
    });

    it("after a cancel", async () => {
      const controller = new AbortController();
      const pending = run({ command: `${escapers}; sleep 30` }, { signal: controller.signal });
      await vi.waitFor(() => expect(existsSync(path.join(ws.dir, "double.pid"))).toBe(true), {
        timeout: 10_000,
      });
      controller.abort();
      expect((await pending).status).toBe("cancelled");
      expect(pids().filter(alive)).toEqual([]);
    });
  });
});
