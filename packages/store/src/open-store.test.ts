import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { createClient, LibsqlError } from "@libsql/client";
import { afterEach, describe, expect, it } from "vitest";
import { MIGRATION_COUNT } from "./__fixtures__/migrations.ts";
import { isRetryableError } from "./busy-retry.ts";
import { Connection, resolveLocation } from "./connection.ts";
import { createContext, estimateTokens } from "./context.ts";
import { openStore } from "./open-store.ts";
import { WriteQueue } from "./write-queue.ts";

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "longrun-open-"));
  dirs.push(dir);
  return dir;
}
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe("openStore", () => {
  it("creates parent folders, migrates an empty file, and reopens a migrated one", async () => {
    const dir = await tempDir();
    const url = join(dir, "nested", "deeper", "longrun.db");
    const first = await openStore({ url });
    expect(first.file).toBe(url);
    const message = await first.messages.append("a", { role: "user", content: "kept" });
    await first.ping();
    await first.close();
    await first.close();

    const second = await openStore({ url: pathToFileURL(url).href });
    try {
      expect(await second.messages.list("a")).toEqual([message]);
      const migrations = await second.db.all<{ n: number }>("SELECT count(*) AS n FROM __drizzle_migrations");
      expect(migrations[0]?.n).toBe(MIGRATION_COUNT);
      const tables = await second.db.all<{ name: string }>(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\' ORDER BY name",
      );
      expect(tables.map((table) => table.name)).toEqual([
        "agent_state",
        "agents",
        "api_keys",
        "approval_rules",
        "approvals",
        "blobs",
        "compactions",
        "event_heads",
        "events",
        "file_snapshots",
        "messages",
        "prepared_summaries",
        "runs",
        "threads",
        "tool_runs",
      ]);
    } finally {
      await second.close();
    }
  });

  it("applies WAL, synchronous=NORMAL and a 5 s busy timeout", async () => {
    const dir = await tempDir();
    const store = await openStore({ url: `file:${join(dir, "p.db")}` });
    try {
      expect(await store.db.get<{ journal_mode: string }>("PRAGMA journal_mode")).toEqual({
        journal_mode: "wal",
      });
      expect(await store.db.get<{ synchronous: number }>("PRAGMA synchronous")).toEqual({ synchronous: 1 });
      expect(await store.db.get<{ timeout: number }>("PRAGMA busy_timeout")).toEqual({ timeout: 5000 });
    } finally {
      await store.close();
    }
  });

  it("accepts relative paths and in-memory databases", async () => {
    const dir = await tempDir();
    const relativePath = relative(process.cwd(), join(dir, "rel.db"));
    expect(resolveLocation(relativePath).file).toBe(join(dir, "rel.db"));
    expect(resolveLocation("libsql://example.turso.io")).toMatchObject({
      file: null,
      key: "libsql://example.turso.io",
    });
    const memory = await openStore({ url: ":memory:" });
    try {
      expect((await memory.messages.append("a", { role: "user", content: "m" })).seq).toBe(0);
    } finally {
      await memory.close();
    }
  });

  it("shares one write queue between stores on the same file in one process", async () => {
    const dir = await tempDir();
    const url = join(dir, "shared.db");
    const [one, two] = await Promise.all([openStore({ url }), openStore({ url })]);
    try {
      await Promise.all(
        Array.from({ length: 40 }, (_, index) =>
          (index % 2 === 0 ? one : two).messages.append("a", { role: "user", content: `${index}` }),
        ),
      );
      const seqs = (await one.messages.list("a")).map((message) => message.seq);
      expect(seqs).toEqual(Array.from({ length: 40 }, (_, index) => index));
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });
});

describe("busy handling", () => {
  it("classifies busy, locked and closed-client errors as retryable", () => {
    expect(isRetryableError(new LibsqlError("database is locked", "SQLITE_BUSY"))).toBe(true);
    expect(
      isRetryableError(new Error("wrapped", { cause: new LibsqlError("x", "SQLITE_BUSY_SNAPSHOT") })),
    ).toBe(true);
    expect(isRetryableError(new LibsqlError("closed", "CLIENT_CLOSED"))).toBe(true);
    expect(isRetryableError(new LibsqlError("UNIQUE constraint failed", "SQLITE_CONSTRAINT"))).toBe(false);
    expect(isRetryableError("nope")).toBe(false);
  });

  it("opens a file another connection is writing to, before it is in WAL mode", async () => {
    // The switch to WAL needs an exclusive lock and SQLite fails it at once (no busy timeout): this
    // used to kill a worker that started while another process wrote.
    const dir = await tempDir();
    const url = join(dir, "held.db");
    const holder = createClient({ url: `file:${url}` });
    try {
      await holder.execute("CREATE TABLE outside (x)");
      const tx = await holder.transaction("write");
      await tx.execute("INSERT INTO outside VALUES (1)");
      let released = false;
      const release = setTimeout(() => {
        released = true;
        tx.commit().catch(() => undefined);
      }, 200);
      const store = await openStore({ url });
      clearTimeout(release);
      try {
        // It could only have opened after the other writer let go, and it is WAL now.
        expect(released).toBe(true);
        const mode = await store.db.all<{ journal_mode: string }>("PRAGMA journal_mode");
        expect(mode[0]?.journal_mode).toBe("wal");
        expect((await store.messages.append("a", { role: "user", content: "m" })).seq).toBe(0);
      } finally {
        await store.close();
      }
    } finally {
      holder.close();
    }
  });

  it("reopens the connection and retries a write that hit SQLITE_BUSY", async () => {
    const dir = await tempDir();
    const connection = await Connection.open(resolveLocation(join(dir, "busy.db")));
    const clients = new Set<unknown>();
    try {
      // Storage faults are storage-health.test.ts's: here every access passes.
      const healthy = { guard: async () => {}, check: async () => null, failure: (error: unknown) => error };
      const context = createContext(connection, new WriteQueue(), estimateTokens, healthy);
      let calls = 0;
      const result = await context.write(async (tx) => {
        calls += 1;
        clients.add(connection.client);
        if (calls < 3) throw new LibsqlError("database is locked", "SQLITE_BUSY");
        return (await tx.all<{ n: number }>("SELECT 7 AS n"))[0]?.n;
      });
      expect(result).toBe(7);
      expect(calls).toBe(3);
      // Each retry ran on a fresh client, never on the one that saw BUSY.
      expect(clients.size).toBe(3);
      // The raw-SQL engine (native prepared statements) is reopened the same way.
      const engine = connection.engine;
      const reopen = engine.reopen.bind(engine);
      let reopened = 0;
      engine.reopen = () => {
        reopened += 1;
        reopen();
      };
      let rawCalls = 0;
      const raw = await context.writeRaw(async (tx) => {
        rawCalls += 1;
        if (rawCalls < 3) throw new LibsqlError("database is locked", "SQLITE_BUSY");
        return (await tx.execute({ sql: "SELECT 8 AS n" })).rows[0]?.n;
      });
      expect([raw, rawCalls, reopened]).toEqual([8, 3, 2]);
      await expect(
        context.write(async () => {
          throw new LibsqlError("UNIQUE constraint failed", "SQLITE_CONSTRAINT");
        }),
      ).rejects.toMatchObject({ code: "SQLITE_CONSTRAINT" });
    } finally {
      connection.close();
    }
  });
});
