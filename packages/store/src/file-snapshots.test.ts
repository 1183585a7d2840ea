import { createHash } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { tempStore } from "./__fixtures__/temp-store.ts";
import type { FileContent } from "./file-snapshots.ts";

type TempStore = Awaited<ReturnType<typeof tempStore>>;

let temp: TempStore | undefined;
afterEach(async () => {
  await temp?.cleanup();
  temp = undefined;
});

const content = (bytes: Uint8Array, keep = true): FileContent => ({
  hash: createHash("sha256").update(bytes).digest("hex"),
  size: bytes.length,
  bytes: keep ? bytes : null,
});

describe("file snapshots", () => {
  it("stores a content once per tenant however often it is written, and a before row only first", async () => {
    temp = await tempStore();
    const { store } = temp;
    const same = content(new TextEncoder().encode("same text\n"));
    for (const [seq, callId] of [
      [2, "c1"],
      [4, "c2"],
    ] as const) {
      await store.transact((unit) =>
        unit.recordFileChanges({
          tenantId: "t1",
          threadId: "th",
          agentId: "a",
          messageId: `m${seq}`,
          seq,
          callId,
          changes: [{ path: "notes.txt", before: null, after: same }],
        }),
      );
    }
    const rows = await store.fileSnapshots.list("th");
    expect(rows.map((row) => [row.phase, row.hash, row.seq])).toEqual([
      ["before", null, 2],
      ["after", same.hash, 2],
      ["after", same.hash, 4],
    ]);
    expect(await store.fileSnapshots.blobUsage("t1")).toEqual({ blobs: 1, bytes: same.size });
    expect((await store.fileSnapshots.latest("th", "notes.txt"))?.messageId).toBe("m4");
  });

  it("round-trips binary bytes, keeps only hash and size over the cap, and fills bytes in later", async () => {
    temp = await tempStore();
    const { store } = temp;
    const binary = new Uint8Array(256).map((_, index) => index);
    const record = (value: FileContent, callId: string) =>
      store.transact((unit) =>
        unit.recordFileChanges({
          tenantId: "t1",
          threadId: "th",
          agentId: "a",
          messageId: callId,
          seq: 1,
          callId,
          changes: [{ path: "blob.bin", after: value }],
        }),
      );
    await record(content(binary), "c1");
    expect(await store.fileSnapshots.blob("t1", content(binary).hash)).toEqual(binary);
    // Another tenant sees nothing of it.
    expect(await store.fileSnapshots.blob("t2", content(binary).hash)).toBeNull();

    const big = new Uint8Array(4096).fill(7);
    await record(content(big, false), "c2");
    const row = await store.fileSnapshots.latest("th", "blob.bin");
    expect(row).toMatchObject({ tooLarge: true, size: 4096, hash: content(big).hash });
    expect(await store.fileSnapshots.blob("t1", content(big).hash)).toBeNull();
    await record(content(big), "c3");
    expect(await store.fileSnapshots.blob("t1", content(big).hash)).toEqual(big);
  });
});
