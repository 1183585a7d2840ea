import { symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestWorkspace, type TestWorkspace } from "../tools/test-workspace.ts";
import { readRecentFiles } from "./read-recent-files.ts";

let ws: TestWorkspace;
beforeEach(async () => {
  ws = await createTestWorkspace();
});
afterEach(async () => {
  await ws.cleanup();
});

describe("readRecentFiles", () => {
  it("restores workspace files, newest first, and never one that leads outside", async () => {
    await writeFile(path.join(ws.outside, "secret.txt"), "top secret");
    await ws.write("old.txt", "old");
    await ws.write("new.txt", "new");
    await symlink(path.join(ws.outside, "secret.txt"), path.join(ws.dir, "leak.txt"));
    const files = await readRecentFiles(ws.dir, [
      { path: "old.txt", readAt: 1 },
      { path: "leak.txt", readAt: 3 },
      { path: "../outside/secret.txt", readAt: 4 },
      { path: "new.txt", readAt: 2 },
      { path: "gone.txt", readAt: 5 },
    ]);
    expect(files.map((file) => [file.path, Buffer.from(file.content).toString()])).toEqual([
      ["new.txt", "new"],
      ["old.txt", "old"],
    ]);
  });
});
