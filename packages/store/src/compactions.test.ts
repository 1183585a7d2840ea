import { CompactionEvent } from "@longrun/protocol";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempStore } from "./__fixtures__/temp-store.ts";
import type { NewCompaction } from "./compactions.ts";
import type { Store } from "./open-store.ts";

let store: Store;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ store, cleanup } = await tempStore());
});
afterEach(async () => {
  await cleanup();
});

const compaction = (agentId: string, cutoffIndex: number, createdAt?: number): NewCompaction => ({
  agentId,
  cutoffMessageId: `m-${cutoffIndex}`,
  cutoffIndex,
  summaryMessage: { role: "user", content: `summary up to ${cutoffIndex}` },
  historyFile: ".longrun/history/t/a.jsonl",
  strategy: "partial",
  trigger: "auto",
  tokensBefore: 9000,
  tokensAfter: 2000,
  restored: [{ kind: "file", path: "src/a.ts", tokens: 120, content: "export {}" }],
  ...(createdAt === undefined ? {} : { createdAt }),
});

describe("compactions", () => {
  it("inserts, gets, lists oldest first and finds the latest", async () => {
    expect(await store.compactions.latest("a")).toBeNull();
    const first = await store.compactions.insert(compaction("a", 10));
    expect(CompactionEvent.parse(first)).toMatchObject({ cutoffIndex: 10 });
    const second = await store.compactions.insert({
      ...compaction("a", 20),
      pinnedMessage: { role: "user", content: "the task" },
    });
    await store.compactions.insert(compaction("b", 5));

    expect(await store.compactions.get(first.id)).toMatchObject({ ...first, pinnedMessage: null });
    expect(await store.compactions.get(second.id)).toMatchObject(second);
    expect(await store.compactions.latest("a")).toMatchObject({ id: second.id, cutoffIndex: 20 });
    expect((await store.compactions.list("a")).map((event) => event.cutoffIndex)).toEqual([10, 20]);
    expect(await store.compactions.get("missing")).toBeNull();
  });

  it("breaks ties in the same millisecond by insertion order", async () => {
    await store.compactions.insert(compaction("a", 1, 1000));
    const later = await store.compactions.insert(compaction("a", 2, 1000));
    expect((await store.compactions.latest("a"))?.id).toBe(later.id);
  });

  it("keeps the working-state ledger and what was shrunk; older rows read them as null", async () => {
    const ledger = {
      version: 1 as const,
      throughStep: 41,
      changedFiles: [{ path: "src/a.ts", action: "edited" as const, step: 12 }],
      readFiles: [{ path: "README.md", lines: "1-40", step: 3 }],
      commands: [{ command: "npm test", exitCode: 1, step: 30 }],
      errors: [
        {
          step: 30,
          call: "run_command `npm test`",
          line: "1 failed",
          exitCode: 1,
          key: "shell:npm test",
          resolvedAt: null,
        },
      ],
      plan: "fix the parser",
      todos: [{ content: "parser", status: "in_progress" as const }],
      pendingApprovals: [],
      subAgents: [],
      userNotes: [{ step: 0, text: "fix it" }],
    };
    const shrunk = [
      { what: "restored_files" as const, tokensBefore: 7000, tokensAfter: 6000, detail: "2 left out" },
    ];
    const saved = await store.compactions.insert({ ...compaction("a", 10), ledger, shrunk });
    const read = await store.compactions.latest("a");
    expect(read).toMatchObject({ id: saved.id, ledger, shrunk });
    expect(CompactionEvent.parse(read)).toMatchObject({ ledger });
    const old = await store.compactions.insert(compaction("b", 3));
    expect(await store.compactions.get(old.id)).toMatchObject({ ledger: null, shrunk: null });
  });
});
