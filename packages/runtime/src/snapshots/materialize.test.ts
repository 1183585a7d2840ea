import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { StoredMessage } from "@longrun/protocol";
import type { FileChange } from "@longrun/store";
import { createTempStore, type TempStore } from "@longrun/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { materializeWorkspace } from "./materialize.ts";
import { fileChange } from "./record-changes.ts";

// A fork's folder rebuilt from snapshots on a real libSQL file into real folders: bytes, not text; a
// content over the cap is kept as a hash only and reported, never invented.

let temp: TempStore;
let base: string;
const thread = { id: "thread-1", tenantId: "tenant-1" };

beforeEach(async () => {
  temp = await createTempStore();
  base = await mkdtemp(path.join(tmpdir(), "longrun-materialize-"));
});
afterEach(async () => {
  await temp.cleanup();
  await rm(base, { recursive: true, force: true });
});

/** The root agent's call whose result fact has `seq` changed files. */
async function changed(seq: number, changes: FileChange[], agentId = "root") {
  await temp.store.transact((unit) =>
    unit.recordFileChanges({
      tenantId: thread.tenantId,
      threadId: thread.id,
      agentId,
      messageId: `m${seq}`,
      seq,
      callId: `call-${seq}`,
      changes,
    }),
  );
}

const point = (seq: number, createdAt: number): StoredMessage =>
  ({ id: `m${seq}`, seq, createdAt, role: "tool" }) as StoredMessage;

async function materialize(seq: number, at = Date.now()) {
  const targetDir = await mkdtemp(path.join(base, "fork-"));
  const result = await materializeWorkspace(temp.store, {
    sourceThreadId: thread.id,
    tenantId: thread.tenantId,
    sourceDir: path.join(base, "source"),
    rootAgentId: "root",
    point: point(seq, at),
    targetDir,
  });
  return { targetDir, result };
}

describe("materializeWorkspace", () => {
  it("round-trips binary bytes and reports a content over the cap instead of inventing it", async () => {
    const source = path.join(base, "source");
    await mkdir(source);
    const binary = new Uint8Array(1024).map((_, index) => (index * 7) % 256);
    const big = new Uint8Array(2048).fill(1);
    await writeFile(path.join(source, "image.bin"), new Uint8Array([9, 9, 9]));
    await writeFile(path.join(source, "big.bin"), new Uint8Array([2]));
    await writeFile(path.join(source, "untouched.txt"), "never changed by the agent\n");
    // Cap of 1500 bytes: the binary is kept whole, the big file as a hash and size only.
    await changed(2, [fileChange("image.bin", null, binary, 1500), fileChange("big.bin", null, big, 1500)]);
    await changed(4, [fileChange("image.bin", binary, new Uint8Array([9, 9, 9]), 1500)]);

    const { targetDir, result } = await materialize(2);
    expect(new Uint8Array(await readFile(path.join(targetDir, "image.bin")))).toEqual(binary);
    expect(
      createHash("sha256")
        .update(await readFile(path.join(targetDir, "image.bin")))
        .digest("hex"),
    ).toBe(createHash("sha256").update(binary).digest("hex"));
    expect(await readFile(path.join(targetDir, "untouched.txt"), "utf8")).toBe(
      "never changed by the agent\n",
    );
    expect(result.unrestorable).toEqual(["big.bin"]);
    // Left as copied, never replaced by something it was not.
    expect(new Uint8Array(await readFile(path.join(targetDir, "big.bin")))).toEqual(new Uint8Array([2]));
    // When the current file is the content over the cap, the copy is right and nothing is reported.
    await writeFile(path.join(source, "big.bin"), big);
    expect((await materialize(2)).result.unrestorable).toEqual([]);

    // Before the first change: neither file existed.
    const before = await materialize(1);
    await expect(stat(path.join(before.targetDir, "image.bin"))).rejects.toThrow();
    expect(before.result).toMatchObject({ removed: 2 });
  });

  it("takes other agents' changes (sub-agents) by time and skips longrun's own folder", async () => {
    const source = path.join(base, "source");
    await mkdir(path.join(source, ".longrun"), { recursive: true });
    await writeFile(path.join(source, ".longrun", "history.jsonl"), "{}\n");
    await writeFile(path.join(source, "shared.txt"), "later\n");
    await changed(7, [fileChange("shared.txt", null, new TextEncoder().encode("sub-agent's\n"))], "child");
    const { targetDir } = await materialize(3);
    expect(await readFile(path.join(targetDir, "shared.txt"), "utf8")).toBe("sub-agent's\n");
    await expect(stat(path.join(targetDir, ".longrun"))).rejects.toThrow();
    // A point recorded before the sub-agent's write: the file did not exist yet.
    const earlier = await materialize(3, 0);
    await expect(stat(path.join(earlier.targetDir, "shared.txt"))).rejects.toThrow();
  });
});
