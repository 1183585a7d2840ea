import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createToolRegistry } from "./registry.ts";
import { createTestWorkspace, type TestWorkspace } from "./test-workspace.ts";

// Another process swaps a workspace path for a symlink to the outside, over and over, with atomic
// renames, while a tool works on that path. Whatever the timing, no tool may read, list, write or
// edit anything outside the workspace.
const SWAPPER = `
const fs = require("node:fs");
const [mode, target, outside, spare] = process.argv.slice(1);
const link = spare + ".link";
for (;;) {
  try {
    fs.rmSync(link, { force: true });
    fs.symlinkSync(outside, link);
    if (mode === "file") {
      fs.renameSync(link, target);
      fs.writeFileSync(spare, "top inside\\n");
      fs.renameSync(spare, target);
    } else {
      fs.renameSync(target, spare);
      fs.renameSync(link, target);
      fs.renameSync(target, link);
      fs.renameSync(spare, target);
    }
  } catch {}
}
`;

let ws: TestWorkspace;
let swapper: ChildProcess | undefined;
const tools = createToolRegistry();
let callCount = 0;
const call = (name: string, args: unknown) =>
  tools.execute({ id: `race_${++callCount}`, name, arguments: JSON.stringify(args) }, ws.context);

/** Starts the swapper and waits until it has swapped at least once. */
async function swap(mode: "file" | "dir", target: string, outside: string): Promise<void> {
  const spare = path.join(ws.dir, `.spare-${mode}`);
  swapper = spawn(process.execPath, ["-e", SWAPPER, mode, path.join(ws.dir, target), outside, spare], {
    stdio: "ignore",
  });
  const before = (await stat(path.join(ws.dir, target))).ino;
  for (;;) {
    const now = await stat(path.join(ws.dir, target)).catch(() => null);
    if (now && now.ino !== before) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

beforeEach(async () => {
  ws = await createTestWorkspace();
  await writeFile(path.join(ws.outside, "secret.txt"), "top secret\n");
});

afterEach(async () => {
  if (swapper?.pid !== undefined && swapper.exitCode === null) {
    const exited = new Promise((resolve) => swapper?.once("exit", resolve));
    process.kill(swapper.pid, "SIGKILL");
    await exited;
  }
  swapper = undefined;
  await ws.cleanup();
});

async function repeat(times: number, action: () => Promise<string>): Promise<string[]> {
  const outputs: string[] = [];
  for (let index = 0; index < times; index++) outputs.push(await action());
  return outputs;
}

const leaked = (outputs: string[]) => outputs.filter((output) => output.includes("top secret")).length;

describe("workspace tools under a symlink swap race", () => {
  it("read_file never returns the outside file", async () => {
    await ws.write("swap.txt", "top inside\n");
    await swap("file", "swap.txt", path.join(ws.outside, "secret.txt"));
    const outputs = await repeat(1_000, async () => (await call("read_file", { path: "swap.txt" })).output);
    expect(leaked(outputs)).toBe(0);
    expect(outputs.some((output) => output.includes("top inside"))).toBe(true);
  }, 120_000);

  it("read_file, grep, list_dir and glob never see into a folder swapped for an outside one", async () => {
    await ws.write("sub/data.txt", "top inside\n");
    await swap("dir", "sub", ws.outside);
    const seen = { read: [] as string[], grep: [] as string[], list: [] as string[], glob: [] as string[] };
    for (let round = 0; round < 250; round++) {
      const [read, grep, list, glob] = await Promise.all([
        call("read_file", { path: "sub/secret.txt" }),
        call("grep", { pattern: "top" }),
        call("list_dir", { path: "sub" }),
        call("glob", { pattern: "**/*.txt" }),
      ]);
      seen.read.push(read.output);
      seen.grep.push(grep.output);
      seen.list.push(list.output);
      seen.glob.push(glob.output);
    }
    expect(seen.grep.some((output) => output.includes("sub/data.txt:1: top inside"))).toBe(true);
    expect(leaked(seen.read) + leaked(seen.grep)).toBe(0);
    const listedOutside = (outputs: string[], name: string) =>
      outputs.filter((output) => output.split("\n").includes(name)).length;
    expect(listedOutside(seen.list, "secret.txt") + listedOutside(seen.glob, "sub/secret.txt")).toBe(0);
  }, 120_000);

  it("write_file and edit_file never change anything outside", async () => {
    await ws.write("swap.txt", "top inside\n");
    await ws.write("sub/data.txt", "top inside\n");
    await swap("file", "swap.txt", path.join(ws.outside, "secret.txt"));
    await repeat(
      300,
      async () => (await call("edit_file", { path: "swap.txt", oldText: "top", newText: "pot" })).output,
    );
    swapper?.kill("SIGKILL");
    await swap("dir", "sub", ws.outside);
    await repeat(
      300,
      async () => (await call("write_file", { path: "sub/secret.txt", content: "overwritten" })).output,
    );
    await repeat(
      300,
      async () => (await call("write_file", { path: "sub/new/deep.txt", content: "created" })).output,
    );
    expect(await readFile(path.join(ws.outside, "secret.txt"), "utf8")).toBe("top secret\n");
    await expect(stat(path.join(ws.outside, "new"))).rejects.toThrow();
  }, 120_000);
});

describe("special files", () => {
  it("read_file and grep do not hang on a FIFO", async () => {
    await mkdir(path.join(ws.dir, "pipes"));
    const made = spawn("mkfifo", [path.join(ws.dir, "pipes", "fifo")]);
    await new Promise((resolve) => made.once("exit", resolve));
    const read = await call("read_file", { path: "pipes/fifo" });
    expect(read.status).toBe("error");
    expect(read.output).toMatch(/not a regular file/);
    expect((await call("grep", { pattern: "x", path: "pipes" })).output).toMatch(/No matches/);
    await rm(path.join(ws.dir, "pipes"), { recursive: true });
  });
});
