import { describe, expect, it } from "vitest";
import { readBoundedPage } from "./paging.ts";

interface Row {
  seq: number;
  text: string;
}

/** A log of rows with seq 1..count, read like the store reads it: after a cursor, at most `count`. */
function source(rows: Row[]) {
  const reads: number[] = [];
  return {
    reads,
    read: async (after: number, count: number) => {
      reads.push(count);
      return rows.filter((row) => row.seq > after).slice(0, count);
    },
  };
}

const rows = (count: number, size: number): Row[] =>
  Array.from({ length: count }, (_, index) => ({ seq: index + 1, text: "x".repeat(size) }));

describe("readBoundedPage", () => {
  it("stops at the limit and gives the cursor to continue", async () => {
    const log = source(rows(10, 10));
    const page = await readBoundedPage({ start: 0, limit: 4, read: log.read, cursorOf: (row) => row.seq });
    expect(page.items.map((row) => row.seq)).toEqual([1, 2, 3, 4]);
    expect(page.next).toBe(4);
    const rest = await readBoundedPage({ start: 4, limit: 100, read: log.read, cursorOf: (row) => row.seq });
    expect(rest.items.map((row) => row.seq)).toEqual([5, 6, 7, 8, 9, 10]);
    expect(rest.next).toBeNull();
  });

  it("cuts a page by serialized bytes, always keeps one item, and reads big rows a few at a time", async () => {
    const log = source(rows(400, 10_000));
    const page = await readBoundedPage({
      start: 0,
      limit: 10_000,
      byteBudget: 100_000,
      read: log.read,
      cursorOf: (row) => row.seq,
    });
    const bytes = page.items.reduce((sum, row) => sum + JSON.stringify(row).length, 0);
    expect(bytes).toBeLessThanOrEqual(100_000);
    expect(page.items.length).toBe(9);
    expect(page.next).toBe(9);
    // After the first chunk the reads are sized from the bytes seen: never 10,000 rows of 10 KB at once.
    expect(Math.max(...log.reads)).toBeLessThanOrEqual(32);
    const single = await readBoundedPage({
      start: 0,
      limit: 10,
      byteBudget: 10,
      read: source(rows(3, 1_000)).read,
      cursorOf: (row) => row.seq,
    });
    expect(single.items.map((row) => row.seq)).toEqual([1]);
    expect(single.next).toBe(1);
  });
});
