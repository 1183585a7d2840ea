import { rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { createTempStore, type TempStore } from "@longrun/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readRecentFiles } from "../compaction/read-recent-files.ts";
import { createTestWorkspace, type TestWorkspace } from "../tools/test-workspace.ts";
import { lastWriteSeen } from "./last-write.ts";
import { fileChange } from "./record-changes.ts";

// Restoration after a compaction names the version it restores: the current file when it is what the
// agent last wrote (or the agent never wrote it), the snapshot of the agent's last write when the file
// changed or vanished outside the agent since. A real libSQL file and a real workspace folder.

let ws: TestWorkspace;
let temp: TempStore;
const thread = { id: "thread-1", tenantId: "tenant-1" };
const encode = (text: string) => new TextEncoder().encode(text);

beforeEach(async () => {
  ws = await createTestWorkspace();
  temp = await createTempStore();
});
afterEach(async () => {
  await temp.cleanup();
  await ws.cleanup();
});

/** The agent wrote `text` to `file` through a file tool; its result fact has `seq`. */
async function agentWrote(file: string, text: string, seq: number) {
  await ws.write(file, text);
  await temp.store.transact((unit) =>
    unit.recordFileChanges({
      ...{ tenantId: thread.tenantId, threadId: thread.id, agentId: "agent-1" },
      messageId: `m${seq}`,
      seq,
      callId: `call-${seq}`,
      changes: [fileChange(file, null, encode(text))],
    }),
  );
}

describe("restoration names its version", () => {
  it("restores the current file when it is what the agent wrote, the snapshot when it changed since", async () => {
    await agentWrote("same.txt", "as written\n", 3);
    await agentWrote("changed.txt", "the agent's text\n", 5);
    await agentWrote("deleted.txt", "soon gone\n", 7);
    await ws.write("read-only.txt", "never written by the agent\n");
    // Outside the agent: an editor rewrites one file and removes another.
    await writeFile(path.join(ws.dir, "changed.txt"), "someone else's text\n");
    await rm(path.join(ws.dir, "deleted.txt"));

    const files = await readRecentFiles(
      ws.dir,
      ["same.txt", "changed.txt", "deleted.txt", "read-only.txt"].map((file, index) => ({
        path: file,
        readAt: 10 - index,
      })),
      8,
      lastWriteSeen(temp.store, thread, "agent-1", []),
    );
    expect(files.map((file) => [file.path, Buffer.from(file.content).toString(), file.version])).toEqual([
      ["same.txt", "as written\n", "current"],
      ["changed.txt", "the agent's text\n", "as of message #5, the agent's last write; changed since"],
      ["deleted.txt", "soon gone\n", "as of message #7, the agent's last write; deleted since"],
      ["read-only.txt", "never written by the agent\n", "current"],
    ]);
  });

  it("restores the current file when the agent read it again after its write", async () => {
    await agentWrote("notes.md", "first\n", 2);
    await writeFile(path.join(ws.dir, "notes.md"), "changed, then read by the agent\n");
    const [file] = await readRecentFiles(
      ws.dir,
      [{ path: "notes.md", readAt: 1 }],
      8,
      lastWriteSeen(temp.store, thread, "agent-1", [{ path: "notes.md", readAt: Date.now() + 60_000 }]),
    );
    expect(file?.version).toBe("current");
    expect(Buffer.from(file?.content ?? []).toString()).toBe("changed, then read by the agent\n");
  });
});
