import { randomInt } from "node:crypto";
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
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

/**
 * Live processes whose command line holds `marker` (a zombie is dead). Commands in a PID namespace
 * report their own pids, not ours, so survivors are found by a unique argument instead.
 */
async function survivors(marker: string): Promise<number[]> {
  const found: number[] = [];
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const [cmdline, stat] = await Promise.all([
        readFile(`/proc/${name}/cmdline`, "utf8"),
        readFile(`/proc/${name}/stat`, "utf8"),
      ]);
      if (cmdline.includes(marker) && !/^\d+ \(.*\) [ZX]/s.test(stat)) found.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** A sleep argument no other process has: `300.<digits>` seconds. */
const uniqueSleep = () => `300.${randomInt(1e9, 2e9)}`;

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

  it("kills its background children on timeout", async () => {
    const marker = uniqueSleep();
    const result = await run({ command: `sleep ${marker} & echo started; wait`, timeoutMs: 300 });
    expect(result.status).toBe("error");
    expect(result.output).toMatch(/started\n\[timed out after 300 ms; process group killed\]/);
    expect(await survivors(marker)).toEqual([]);
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

  describe("leaves no process behind, whatever it does to escape", () => {
    // Each escape touches its file once its sleep exists (or is about to exec), then the command
    // waits for all six, so every escaper is running when the call ends.
    const escapes = (marker: string) =>
      [
        `setsid sleep ${marker} & touch s1`,
        `env -i setsid sh -c 'touch s2; exec sleep ${marker}' >/dev/null 2>&1 &`,
        `( ( touch s3; exec sleep ${marker} ) & ) &`,
        `nohup sh -c 'touch s4; exec sleep ${marker}' >/dev/null 2>&1 &`,
        `bash -c 'sleep ${marker} & disown; touch s5'`,
        // A daemon: fork, new session, fork again, leave the folder, close its output.
        `perl -e 'use POSIX; fork and exit; setsid; fork and exit; chdir "/"; open F, ">", $ARGV[0]; ` +
          `close F; open STDOUT, ">/dev/null"; open STDERR, ">/dev/null"; exec "sleep", $ARGV[1]' "$PWD/s6" ${marker}`,
        "for f in s1 s2 s3 s4 s5 s6; do while [ ! -e $f ]; do sleep 0.01; done; done; echo started",
      ].join("\n");

    it("after a normal exit", async () => {
      const marker = uniqueSleep();
      const result = await run({ command: escapes(marker) });
      expect(result.status).toBe("ok");
      const killed = Number(/\[killed (\d+) process(?:es)? it left running\]$/.exec(result.output)?.[1]);
      expect(result.output).toMatch(/^started\n\[exit code: 0\]\n/);
      expect(killed).toBeGreaterThanOrEqual(6);
      expect(await survivors(marker)).toEqual([]);
    });

    it("after a timeout", async () => {
      const marker = uniqueSleep();
      const result = await run({ command: `${escapes(marker)}; sleep ${marker}`, timeoutMs: 2_000 });
      expect(result.output).toMatch(/started\n\[timed out after 2000 ms/);
      expect(await survivors(marker)).toEqual([]);
    });

    it("after a cancel", async () => {
      const marker = uniqueSleep();
      const controller = new AbortController();
      const pending = run({ command: `${escapes(marker)}; sleep ${marker}` }, { signal: controller.signal });
      const started = () => [1, 2, 3, 4, 5, 6].every((n) => existsSync(path.join(ws.dir, `s${n}`)));
      await vi.waitFor(() => expect(started()).toBe(true), { timeout: 10_000 });
      controller.abort();
      expect((await pending).status).toBe("cancelled");
      expect(await survivors(marker)).toEqual([]);
    });
  });
});

describe("run_command's changes to the workspace", () => {
  it("are recorded like the file tools' changes: created (nothing before), changed and deleted (before unknown), content after", async () => {
    await ws.write("keep.txt", "unchanged\n");
    await ws.write("edit.txt", "one\n");
    await ws.write("gone.txt", "bye\n");
    await ws.write("node_modules/pkg/index.js", "skipped\n");
    const result = await run({
      command:
        "printf 'made\\n' > new.txt && printf 'two\\n' >> edit.txt && rm gone.txt && mkdir -p sub && printf 'deep' > sub/deep.txt && printf 'x' >> node_modules/pkg/index.js",
    });
    expect(result.status).toBe("ok");
    const text = (bytes: Uint8Array | null | undefined) =>
      bytes === null ? null : bytes === undefined ? undefined : Buffer.from(bytes).toString("utf8");
    const recorded = ws.changes.map((change) => ({
      path: change.path,
      before: text(change.before),
      after: text(change.after),
    }));
    expect(recorded).toEqual([
      { path: "new.txt", before: null, after: "made\n" },
      { path: "sub/deep.txt", before: null, after: "deep" },
      { path: "edit.txt", before: undefined, after: "one\ntwo\n" },
      { path: "gone.txt", before: undefined, after: null },
    ]);
  });

  it("records nothing for a command that changes nothing, and a file rewritten with the same size is still seen", async () => {
    await ws.write("same.txt", "aaaa");
    await run({ command: "cat same.txt > /dev/null" });
    expect(ws.changes).toEqual([]);
    await run({ command: "printf 'bbbb' > same.txt" });
    expect(ws.changes.map((change) => change.path)).toEqual(["same.txt"]);
  });
});
