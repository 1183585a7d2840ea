import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { compileGlob } from "./glob-pattern.ts";
import { createToolRegistry } from "./registry.ts";
import { createTestWorkspace, type TestWorkspace } from "./test-workspace.ts";

let ws: TestWorkspace;
const tools = createToolRegistry();
const call = (name: string, args: unknown, signal?: AbortSignal) =>
  tools.execute({ id: "call", name, arguments: JSON.stringify(args) }, ws.context, signal);

beforeEach(async () => {
  ws = await createTestWorkspace();
});
afterEach(async () => {
  await ws.cleanup();
});

describe("grep and glob on hostile patterns", () => {
  it("answers a catastrophic regex in linear time", async () => {
    // As a backtracking RegExp, (a+)+$ takes ~2^40 steps on each of these lines.
    await ws.write("evil.txt", `${"a".repeat(40)}b\n`.repeat(2_000));
    await ws.write("good.txt", `${"a".repeat(40)}\n`);
    const result = await call("grep", { pattern: "(a+)+$" });
    expect(result).toEqual({ status: "ok", output: `good.txt:1: ${"a".repeat(40)}` });
  });

  it("refuses backreferences and lookaround with a clear error", async () => {
    await ws.write("a.txt", "aa\n");
    for (const pattern of ["(a)\\1", "(?=a)a", "(?<!b)a"]) {
      const result = await call("grep", { pattern });
      expect(result.status).toBe("error");
      expect(result.output).toMatch(
        /^pattern is not a valid regular expression \(RE2 syntax: no backreferences/,
      );
    }
  });

  it("reports a cancel as cancelled, never as a partial answer", async () => {
    for (let index = 0; index < 200; index++) {
      await ws.write(`dir${index % 10}/file${index}.txt`, "needle in a haystack\n".repeat(2_000));
    }
    const controller = new AbortController();
    const pending = call("grep", { pattern: "no such needle" }, controller.signal);
    // The first turn of the event loop after the search started: a blocking search never gets here.
    setImmediate(() => controller.abort());
    expect(await pending).toEqual({ status: "cancelled", output: "grep was cancelled." });
  });

  it("matches globs in linear time", async () => {
    const name = "a".repeat(100);
    await ws.write(name, "x\n");
    // As a backtracking RegExp this glob needs ~C(100, 12) steps against the name above.
    const evil = `${"*a".repeat(12)}*b`;
    expect(compileGlob(evil).test(name)).toBe(false);
    expect((await call("glob", { pattern: evil })).output).toBe(`No files match ${evil}`);
    expect((await call("grep", { pattern: "x", glob: evil })).output).toMatch(/^No matches/);
    expect((await call("glob", { pattern: `${"*a".repeat(12)}*` })).output).toBe(name);
  });
});
