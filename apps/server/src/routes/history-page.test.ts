import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readHistoryPage } from "./history-page.ts";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "longrun-history-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("readHistoryPage", () => {
  it("pages a JSONL file by line offset and by bytes, and keeps a torn line as text", async () => {
    const file = join(dir, "agent.jsonl");
    const lines = Array.from({ length: 50 }, (_, index) =>
      JSON.stringify({ seq: index, text: "y".repeat(100) }),
    );
    await writeFile(file, `${lines.join("\n")}\n{"torn":\n`);
    const first = await readHistoryPage(file, 0, 10);
    expect(first?.lines).toHaveLength(10);
    expect(first?.nextOffset).toBe(10);
    const cut = await readHistoryPage(file, 10, 1000, 500);
    expect(cut?.lines.map((line) => (line as { seq: number }).seq)).toEqual([10, 11, 12, 13]);
    expect(cut?.nextOffset).toBe(14);
    const tail = await readHistoryPage(file, 49, 10);
    expect(tail?.lines).toEqual([{ seq: 49, text: "y".repeat(100) }, '{"torn":']);
    expect(tail?.nextOffset).toBeNull();
  });

  it("is null for a missing file", async () => {
    expect(await readHistoryPage(join(dir, "none.jsonl"), 0, 10)).toBeNull();
  });
});
