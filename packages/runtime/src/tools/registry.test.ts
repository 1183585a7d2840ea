import { readFile, symlink } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createToolRegistry } from "./registry.ts";
import { createTestWorkspace, type TestWorkspace } from "./test-workspace.ts";

let ws: TestWorkspace;
const tools = createToolRegistry();
let callCount = 0;
const call = (name: string, args: unknown) =>
  tools.execute(
    { id: `call_${++callCount}`, name, arguments: typeof args === "string" ? args : JSON.stringify(args) },
    ws.context,
  );

beforeEach(async () => {
  ws = await createTestWorkspace();
});
afterEach(async () => {
  await ws.cleanup();
});

describe("workspace confinement", () => {
  it("refuses ../ traversal", async () => {
    await ws.write("../outside/secret.txt", "top secret");
    const result = await call("read_file", { path: "../outside/secret.txt" });
    expect(result.status).toBe("error");
    expect(result.output).toMatch(/escapes the workspace/);
    expect(result.output).not.toContain("top secret");
    const write = await call("write_file", { path: "a/../../outside/new.txt", content: "x" });
    expect(write.status).toBe("error");
    await expect(readFile(path.join(ws.outside, "new.txt"))).rejects.toThrow();
  });

  it("refuses absolute paths outside the workspace and accepts ones inside", async () => {
    const result = await call("read_file", { path: "/etc/hostname" });
    expect(result).toMatchObject({ status: "error" });
    expect(result.output).toMatch(/outside the workspace/);
    await ws.write("inside.txt", "hello");
    const inside = await call("read_file", { path: path.join(ws.dir, "inside.txt") });
    expect(inside).toMatchObject({ status: "ok" });
    expect(inside.output).toContain("hello");
  });

  it("refuses symlinks that lead outside, for reads, writes, listings and walks", async () => {
    await ws.write("../outside/secret.txt", "top secret");
    await symlink(path.join(ws.outside, "secret.txt"), path.join(ws.dir, "leak.txt"));
    await symlink(ws.outside, path.join(ws.dir, "out"));
    await symlink(path.join(ws.outside, "missing.txt"), path.join(ws.dir, "dangling.txt"));

    const read = await call("read_file", { path: "leak.txt" });
    expect(read.status).toBe("error");
    expect(read.output).toMatch(/symlink/);
    expect((await call("read_file", { path: "out/secret.txt" })).status).toBe("error");
    expect((await call("write_file", { path: "out/new.txt", content: "x" })).status).toBe("error");
    expect((await call("write_file", { path: "dangling.txt", content: "x" })).output).toMatch(/dangling/);
    expect((await call("edit_file", { path: "leak.txt", oldText: "top", newText: "no" })).status).toBe(
      "error",
    );
    expect((await call("list_dir", { path: "out" })).status).toBe("error");
    await expect(readFile(path.join(ws.outside, "missing.txt"))).rejects.toThrow();
    expect(await readFile(path.join(ws.outside, "secret.txt"), "utf8")).toBe("top secret");

    const grep = await call("grep", { pattern: "secret" });
    expect(grep.output).not.toContain("top secret");
    const glob = await call("glob", { pattern: "**/*.txt" });
    expect(glob.output).not.toContain("secret.txt");
  });

  it("allows a symlink that stays inside the workspace", async () => {
    await ws.write("real/data.txt", "inside data");
    await symlink(path.join(ws.dir, "real"), path.join(ws.dir, "alias"));
    const read = await call("read_file", { path: "alias/data.txt" });
    expect(read.status).toBe("ok");
    expect(read.output).toContain("inside data");
    expect(ws.reads).toEqual(["real/data.txt"]);
  });
});

describe("paths that stay inside", () => {
  it("accepts .. that stays in the workspace, and reports directories and missing files clearly", async () => {
    await ws.write("b.txt", "bee");
    expect((await call("read_file", { path: "a/../b.txt" })).output).toContain("bee");
    expect((await call("read_file", { path: "." })).output).toMatch(/is a directory; use list_dir/);
    expect((await call("read_file", { path: "nope.txt" })).output).toMatch(
      /No such file or directory: nope.txt/,
    );
    expect((await call("list_dir", { path: "b.txt" })).output).toMatch(/is a file/);
  });

  it("returns cancelled without running when the signal is already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await tools.execute(
      { id: "x", name: "write_file", arguments: JSON.stringify({ path: "never.txt", content: "x" }) },
      ws.context,
      controller.signal,
    );
    expect(result.status).toBe("cancelled");
    await expect(readFile(path.join(ws.dir, "never.txt"))).rejects.toThrow();
  });
});

describe("argument validation", () => {
  it("answers invalid JSON with an error the model can act on", async () => {
    const result = await call("read_file", "{path: oops");
    expect(result.status).toBe("error");
    expect(result.output).toMatch(/Invalid arguments for read_file: not valid JSON/);
  });

  it("names the wrong field", async () => {
    const result = await call("read_file", { path: "a.txt", startLine: "ten" });
    expect(result.status).toBe("error");
    expect(result.output).toMatch(/startLine: .*expected number/);
    const missing = await call("edit_file", { path: "a.txt", newText: "x" });
    expect(missing.output).toMatch(/oldText/);
    const todo = await call("todo_write", { todos: [{ content: "a", status: "doing" }] });
    expect(todo.output).toMatch(/todos\.0\.status/);
  });

  it("reports an unknown tool with the available names", async () => {
    const result = await call("delete_everything", {});
    expect(result.status).toBe("error");
    expect(result.output).toContain("read_file");
  });
});

describe("read_file", () => {
  it("numbers lines and honours ranges", async () => {
    await ws.write("lines.txt", Array.from({ length: 50 }, (_, index) => `line ${index + 1}`).join("\n"));
    const all = await call("read_file", { path: "lines.txt" });
    expect(all.output.split("\n")).toHaveLength(50);
    expect(all.output.split("\n")[0]).toBe("     1\tline 1");
    const range = await call("read_file", { path: "lines.txt", startLine: 10, endLine: 12 });
    expect(range.output).toBe(
      "    10\tline 10\n    11\tline 11\n    12\tline 12\n(showing lines 10-12 of 50; use startLine=13 to continue)",
    );
    const past = await call("read_file", { path: "lines.txt", startLine: 51 });
    expect(past).toMatchObject({ status: "error" });
    expect(past.output).toContain("has 50 lines");
    expect(ws.reads).toContain("lines.txt");
  });

  it("refuses binary files and stays under the output limit on huge files", async () => {
    await ws.write("blob.bin", new Uint8Array([1, 2, 0, 3]));
    expect((await call("read_file", { path: "blob.bin" })).output).toMatch(/binary/);
    await ws.write("big.txt", Array.from({ length: 3000 }, () => "x".repeat(100)).join("\n"));
    const big = await call("read_file", { path: "big.txt" });
    expect(big.output.length).toBeLessThanOrEqual(16_000);
    expect(big.output).toMatch(/use startLine=\d+ to continue/);
  });
});

describe("write_file and edit_file", () => {
  it("creates folders and overwrites", async () => {
    const created = await call("write_file", { path: "deep/er/notes.md", content: "a\nb" });
    expect(created).toMatchObject({ status: "ok" });
    expect(created.output).toMatch(/^Created deep\/er\/notes.md/);
    expect(await readFile(path.join(ws.dir, "deep/er/notes.md"), "utf8")).toBe("a\nb");
    expect((await call("write_file", { path: "deep/er/notes.md", content: "c" })).output).toMatch(
      /^Overwrote/,
    );
    // Each write reports the bytes before and after, for the workspace snapshots.
    const text = (bytes: Uint8Array | null | undefined) => (bytes ? Buffer.from(bytes).toString() : bytes);
    expect(ws.changes.map((change) => [change.path, text(change.before), text(change.after)])).toEqual([
      ["deep/er/notes.md", null, "a\nb"],
      ["deep/er/notes.md", "a\nb", "c"],
    ]);
  });

  it("replaces a unique occurrence literally and fails clearly on absent or ambiguous text", async () => {
    await ws.write("code.ts", "const a = 1;\nconst b = 1;\n");
    const absent = await call("edit_file", { path: "code.ts", oldText: "const c", newText: "x" });
    expect(absent.status).toBe("error");
    expect(absent.output).toMatch(/not found/);
    const ambiguous = await call("edit_file", { path: "code.ts", oldText: "= 1;", newText: "= 2;" });
    expect(ambiguous.status).toBe("error");
    expect(ambiguous.output).toMatch(/appears 2 times/);
    const edited = await call("edit_file", {
      path: "code.ts",
      oldText: "const b = 1;",
      newText: "const b = '$&';",
    });
    expect(edited).toMatchObject({ status: "ok" });
    expect(edited.output).toContain("line 2");
    expect(await readFile(path.join(ws.dir, "code.ts"), "utf8")).toBe("const a = 1;\nconst b = '$&';\n");
    // Only the edit that took effect is reported as a change.
    expect(ws.changes.map((change) => Buffer.from(change.after ?? []).toString())).toEqual([
      "const a = 1;\nconst b = '$&';\n",
    ]);
  });
});

describe("list_dir, glob, grep", () => {
  beforeEach(async () => {
    await ws.write("src/a.ts", "export const alpha = 1;\n// TODO alpha\n");
    await ws.write("src/lib/b.ts", "export const beta = 2;\n");
    await ws.write("src/lib/c.js", "const gamma = 'alpha';\n");
    await ws.write("README.md", "# alpha project\n");
    await ws.write("node_modules/dep/index.ts", "export const alpha = 0;\n");
    await ws.write(".git/config", "alpha\n");
    await ws.write("img.png", new Uint8Array([0x89, 0, 0, 0x61, 0x6c, 0x70, 0x68, 0x61]));
  });

  it("lists a folder", async () => {
    const listing = await call("list_dir", {});
    expect(listing.output.split("\n")).toEqual([".git/", "README.md", "img.png", "node_modules/", "src/"]);
    expect((await call("list_dir", { path: "src" })).output).toBe("a.ts\nlib/");
  });

  it("globs with **, * and braces, skipping node_modules", async () => {
    expect((await call("glob", { pattern: "**/*.ts" })).output).toBe("src/a.ts\nsrc/lib/b.ts");
    expect((await call("glob", { pattern: "src/**/*.{ts,js}" })).output).toBe(
      "src/a.ts\nsrc/lib/b.ts\nsrc/lib/c.js",
    );
    expect((await call("glob", { pattern: "*.md" })).output).toBe("README.md");
    expect((await call("glob", { pattern: "src/?.ts" })).output).toBe("src/a.ts");
    expect((await call("glob", { pattern: "nope/**" })).output).toMatch(/No files match/);
    expect((await call("glob", { pattern: "../**" })).status).toBe("error");
  });

  it("greps text files, skipping binary, node_modules and .git", async () => {
    const all = await call("grep", { pattern: "alpha" });
    expect(all.output.split("\n")).toEqual([
      "README.md:1: # alpha project",
      "src/a.ts:1: export const alpha = 1;",
      "src/a.ts:2: // TODO alpha",
      "src/lib/c.js:1: const gamma = 'alpha';",
    ]);
    const filtered = await call("grep", { pattern: "const \\w+ =", glob: "*.ts", path: "src" });
    expect(filtered.output).toBe(
      "src/a.ts:1: export const alpha = 1;\nsrc/lib/b.ts:1: export const beta = 2;",
    );
    const single = await call("grep", { pattern: "beta", path: "src/lib/b.ts" });
    expect(single.output).toBe("src/lib/b.ts:1: export const beta = 2;");
    const bad = await call("grep", { pattern: "(" });
    expect(bad).toMatchObject({ status: "error" });
    expect(bad.output).toMatch(/not a valid regular expression/);
  });

  it("bounds grep output", async () => {
    await ws.write("many.txt", Array.from({ length: 500 }, (_, index) => `hit ${index}`).join("\n"));
    const result = await call("grep", { pattern: "^hit" });
    const lines = result.output.split("\n");
    expect(lines).toHaveLength(201);
    expect(lines.at(-1)).toMatch(/stopped after 200 matches/);
  });
});

describe("output limit", () => {
  it("cuts oversized output with a marker saying how much was cut", async () => {
    const small = createToolRegistry({ outputLimit: 1_000 });
    await ws.write("wide.txt", "y".repeat(5_000));
    const result = await small.execute(
      { id: "c1", name: "grep", arguments: JSON.stringify({ pattern: "y" }) },
      ws.context,
    );
    // grep's own 300-char line cap applies first; use many files so the total is large.
    expect(result.output.length).toBeLessThanOrEqual(1_000);
    for (let index = 0; index < 20; index++) await ws.write(`f${index}.txt`, "z".repeat(200));
    const many = await small.execute(
      { id: "c2", name: "grep", arguments: JSON.stringify({ pattern: "z" }) },
      ws.context,
    );
    expect(many.output.length).toBeLessThanOrEqual(1_000);
    expect(many.output).toMatch(/\[output cut: \d+ of \d+ characters omitted\]/);
  });
});

describe("agent state tools", () => {
  it("passes todos, plan and spawn specs to the context", async () => {
    const todos = [
      { content: "read code", status: "completed" },
      { content: "fix bug", status: "in_progress" },
    ];
    const todo = await call("todo_write", { todos });
    expect(todo.output).toContain("[x] read code\n[~] fix bug");
    expect(ws.todos).toEqual([todos]);
    await call("update_plan", { plan: "1. read\n2. fix" });
    expect(ws.plans).toEqual(["1. read\n2. fix"]);
    const spawn = await call("spawn_agents", { agents: [{ name: "scout", brief: "look around" }] });
    expect(spawn).toMatchObject({ status: "ok", parked: true });
    expect(ws.spawns[0]?.specs).toEqual([{ name: "scout", brief: "look around", inherit: "fresh" }]);
  });
});

describe("definitions and web_search", () => {
  it("offers JSON-schema definitions and no web_search without an endpoint", async () => {
    const names = tools.definitions().map((definition) => definition.function.name);
    expect(names).toEqual([
      "read_file",
      "list_dir",
      "glob",
      "grep",
      "write_file",
      "edit_file",
      "run_command",
      "todo_write",
      "update_plan",
      "spawn_agents",
    ]);
    const read = tools.definitions()[0]?.function.parameters;
    expect(read).toMatchObject({ type: "object", required: ["path"] });
    expect(read).not.toHaveProperty("$schema");
    expect(tools.needsApproval("run_command")).toBe(true);
    expect(tools.needsApproval("read_file")).toBe(false);
    expect((await call("web_search", { query: "x" })).output).toMatch(/Unknown tool/);
  });

  it("posts the query to the configured endpoint", async () => {
    const queries: unknown[] = [];
    const server = createServer((request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => {
        body += chunk.toString();
      });
      request.on("end", () => {
        queries.push(JSON.parse(body));
        response.setHeader("content-type", "application/json");
        response.end(
          JSON.stringify({ results: [{ title: "Hono", url: "https://hono.dev", snippet: "Web framework" }] }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const search = createToolRegistry({ searchEndpoint: `http://127.0.0.1:${port}/search` });
      expect(search.has("web_search")).toBe(true);
      const result = await search.execute(
        { id: "s1", name: "web_search", arguments: JSON.stringify({ query: "hono" }) },
        ws.context,
      );
      expect(result).toEqual({ status: "ok", output: "1. Hono\n   https://hono.dev\n   Web framework" });
      expect(queries).toEqual([{ query: "hono" }]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
