import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runAppendWorkers, type WorkerReport } from "./__fixtures__/spawn-worker.ts";
import { MIGRATIONS_FOLDER } from "./migrate.ts";
import { openStore } from "./open-store.ts";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe("two processes appending to one libSQL file", () => {
  it("keeps every row, with gapless unique seqs in messages and events", { timeout: 120_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), "longrun-store-concurrency-"));
    dirs.push(dir);
    // A brand-new file: both processes also race to create and migrate it.
    const url = join(dir, "shared.db");
    const count = 1000;
    const reports = await runAppendWorkers([
      [url, "agent-1", "thread-1", String(count), "A"],
      [url, "agent-1", "thread-1", String(count), "B"],
    ]);
    expect(reports.map((report) => report.appends)).toEqual([2 * count, 2 * count]);
    // The two writers really overlapped in time.
    const [a, b] = reports as [WorkerReport, WorkerReport];
    expect(Math.max(a.startedAt, b.startedAt)).toBeLessThan(Math.min(a.endedAt, b.endedAt));

    const store = await openStore({ url });
    try {
      const messages = await store.messages.list("agent-1");
      expect(messages).toHaveLength(2 * count);
      expect(messages.map((message) => message.seq)).toEqual(Array.from({ length: 2 * count }, (_, i) => i));
      expect(new Set(messages.map((message) => message.id)).size).toBe(2 * count);
      for (const label of ["A", "B"]) {
        // Each writer's own appends stay in its order.
        const own = messages
          .filter((message) => String(message.content).startsWith(`${label} `))
          .map((message) => Number(String(message.content).split(" ")[2]));
        expect(own).toEqual(Array.from({ length: count }, (_, i) => i));
      }

      const events = await store.events.after("thread-1", 0);
      expect(events).toHaveLength(2 * count);
      expect(events.map((event) => event.seq)).toEqual(Array.from({ length: 2 * count }, (_, i) => i + 1));
      expect(await store.events.head("thread-1")).toBe(2 * count);
      // Both opened the new file at once; each migration was recorded exactly once.
      const applied = await store.db.all<{ n: number }>("SELECT count(*) AS n FROM __drizzle_migrations");
      const journal = JSON.parse(await readFile(join(MIGRATIONS_FOLDER, "meta", "_journal.json"), "utf8"));
      expect(applied[0]?.n).toBe((journal as { entries: unknown[] }).entries.length);
    } finally {
      await store.close();
    }
  });
});
