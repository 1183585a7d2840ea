import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { migrate } from "drizzle-orm/libsql/migrator";
import { afterEach, describe, expect, it } from "vitest";
import { MIGRATIONS_FOLDER } from "./migrate.ts";
import { openStore } from "./open-store.ts";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** A database as the first release left it: only migration 0000 applied. */
async function firstReleaseDatabase(dir: string): Promise<string> {
  const folder = join(dir, "migrations-v0");
  await mkdir(join(folder, "meta"), { recursive: true });
  await cp(join(MIGRATIONS_FOLDER, "0000_init.sql"), join(folder, "0000_init.sql"));
  const journal = JSON.parse(await readFile(join(MIGRATIONS_FOLDER, "meta/_journal.json"), "utf8")) as {
    entries: unknown[];
  };
  await writeFile(
    join(folder, "meta/_journal.json"),
    JSON.stringify({ ...journal, entries: journal.entries.slice(0, 1) }),
  );
  const url = `file:${join(dir, "old.db")}`;
  const client = createClient({ url });
  await migrate(drizzle(client), { migrationsFolder: folder });
  await client.executeMultiple(`
    INSERT INTO agents (id, thread_id, name, created_at) VALUES ('agent-1', 'thread-1', 'root', 1);
    INSERT INTO agent_state (agent_id, plan, todos, recent_files, pending_approvals, updated_at)
      VALUES ('agent-1', 'the plan', '[]', '[]',
        '[{"callId":"c1","messageId":"m1","toolName":"run_command","arguments":"{}","requestedAt":5},
          {"callId":"c2","messageId":"m1","toolName":"run_command","arguments":"{}","requestedAt":6,"decision":"approve"}]', 9);
    INSERT INTO events (thread_id, seq, type, data, created_at) VALUES ('thread-1', 1, 'x', '{}', 1), ('thread-1', 2, 'x', '{}', 2);
    INSERT INTO tool_runs (call_id, agent_id, name, started_at) VALUES ('c0', 'agent-1', 'read_file', 3);
  `);
  client.close();
  return url;
}

describe("migrations", () => {
  it("carry a first-release database forward: approvals, event heads and tool runs keep their data", async () => {
    const dir = await mkdtemp(join(tmpdir(), "longrun-migrate-"));
    dirs.push(dir);
    const store = await openStore({ url: await firstReleaseDatabase(dir) });
    try {
      expect(await store.approvals.get("agent-1", "c1")).toMatchObject({
        threadId: "thread-1",
        decision: null,
      });
      expect(await store.approvals.get("agent-1", "c2")).toMatchObject({ decision: "approve", decidedAt: 9 });
      const state = await store.agentState.get("agent-1");
      expect(state.plan).toBe("the plan");
      expect(state.pendingApprovals.map((approval) => approval.callId)).toEqual(["c1"]);
      expect(await store.events.head("thread-1")).toBe(2);
      expect(
        (await store.events.append({ threadId: "thread-1", type: "message.delta", data: { text: "x" } })).seq,
      ).toBe(3);
      expect(await store.toolRuns.get("agent-1", "c0")).toMatchObject({
        name: "read_file",
        finishedAt: null,
      });
    } finally {
      await store.close();
    }
  });
});
