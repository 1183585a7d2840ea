/** Largest JSON a page of events, facts or history lines carries; a page always has at least one item. */
export const PAGE_BYTE_BUDGET = 4 * 1024 * 1024;

/** The first read of a page; later reads are sized from the bytes per item seen so far. */
const FIRST_CHUNK = 32;
const MAX_CHUNK = 256;

/**
 * Reads a page bounded by count and by serialized bytes, in chunks sized so that large items are not
 * loaded many at a time. `next` is the cursor to continue from, or null when the source is exhausted.
 */
export async function readBoundedPage<Item>(options: {
  start: number;
  limit: number;
  byteBudget?: number;
  read(after: number, count: number): Promise<Item[]>;
  cursorOf(item: Item): number;
}): Promise<{ items: Item[]; next: number | null }> {
  const budget = options.byteBudget ?? PAGE_BYTE_BUDGET;
  const items: Item[] = [];
  let bytes = 0;
  let cursor = options.start;
  let chunk = Math.min(FIRST_CHUNK, options.limit);
  for (;;) {
    const rows = await options.read(cursor, chunk);
    for (const row of rows) {
      const size = Buffer.byteLength(JSON.stringify(row));
      if (items.length > 0 && bytes + size > budget) return { items, next: cursor };
      items.push(row);
      bytes += size;
      cursor = options.cursorOf(row);
      if (items.length === options.limit) return { items, next: cursor };
    }
    if (rows.length < chunk) return { items, next: null };
    const perItem = Math.max(1, bytes / items.length);
    chunk = Math.max(
      1,
      Math.min(MAX_CHUNK, options.limit - items.length, Math.floor((budget - bytes) / perItem)),
    );
  }
}
