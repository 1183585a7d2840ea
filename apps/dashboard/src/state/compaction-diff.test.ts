import type { ContextView, Ledger, StoredMessage } from "@longrun/protocol";
import { describe, expect, it } from "vitest";
import { removedLines, requestChecks } from "./compaction-diff.ts";

function message(seq: number, fields: Partial<StoredMessage>): StoredMessage {
  return {
    id: `m${seq}`,
    agentId: "a",
    seq,
    tokenCount: 10,
    createdAt: 0,
    role: "assistant",
    content: null,
    ...fields,
  };
}

function call(id: string, name: string, args: Record<string, unknown>) {
  return { id, type: "function" as const, function: { name, arguments: JSON.stringify(args) } };
}

const ledger: Ledger = {
  version: 1,
  throughStep: 9,
  changedFiles: [{ path: "/repo/notes.md", action: "edited", step: 8 }],
  readFiles: [
    { path: "/repo/app.py", step: 4 },
    { path: "/repo/notes.md", step: 9 },
  ],
  commands: [{ command: "npm test", exitCode: 1, outcome: "failed", step: 6 }],
  errors: [
    {
      step: 6,
      call: "run_command npm test",
      line: "Error: 2 tests failed",
      exitCode: 1,
      key: "k",
      resolvedAt: null,
    },
  ],
  plan: null,
  todos: [
    { content: "Fix the failing tests", status: "in_progress" },
    { content: "Survey", status: "completed" },
  ],
  pendingApprovals: [],
  subAgents: [],
  userNotes: [{ step: 3, text: "use pytest, not unittest" }],
  names: [
    { name: "load_config", file: "/repo/app.py", uses: 2, step: 4 },
    { name: "write_file", file: null, uses: 1, step: 2 },
  ],
};

const messages = [
  message(0, { role: "system", content: "You are an agent." }),
  message(1, { role: "user", content: "Fix the tests." }),
  message(2, {
    role: "assistant",
    content: "Step 1: write_file.",
    toolCalls: [call("c2", "write_file", { path: "/repo/notes.md", content: "x" })],
  }),
  message(3, { role: "user", content: "use pytest, not unittest" }),
  message(4, {
    role: "assistant",
    content: "I see load_config.",
    toolCalls: [call("c4", "read_file", { path: "/repo/app.py" })],
  }),
  message(5, { role: "tool", toolCallId: "c4", content: "def load_config(): ..." }),
  message(6, {
    role: "assistant",
    content: null,
    toolCalls: [call("c6", "run_command", { command: "npm test" })],
  }),
  message(7, { role: "tool", toolCallId: "c6", toolStatus: "error", content: "Error: 2 tests failed" }),
  message(8, { role: "assistant", content: "Thinking it over." }),
  message(9, {
    role: "assistant",
    content: null,
    toolCalls: [call("c9", "read_file", { path: "notes.md" })],
  }),
];

const coverage = {
  fromSeq: 0,
  toSeq: 9,
  kept: [
    { seq: 0, messageId: "m0", why: "system" as const },
    { seq: 1, messageId: "m1", why: "pinned" as const },
  ],
};

describe("the removed messages of a compaction beside its ledger", () => {
  const lines = removedLines(messages, coverage, ledger);
  const bySeq = new Map(lines.map((line) => [line.seq, line]));

  it("lists the range less what the projection still sends", () => {
    expect(lines.map((line) => line.seq)).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it("puts a write beside its file's entry (a later call's, here), not beside the tool's own name", () => {
    expect(bySeq.get(2)?.carriedBy).toEqual([
      { section: "Files changed", text: "/repo/notes.md (edited #8, a later call)" },
    ]);
    expect(bySeq.get(2)?.what).toContain("write_file(/repo/notes.md)");
  });

  it("puts a read of a changed file beside its read only, the entry citing its step", () => {
    expect(bySeq.get(9)?.carriedBy).toEqual([{ section: "Files read", text: "/repo/notes.md #9" }]);
  });

  it("puts a read, its result and the names the text uses beside their entries", () => {
    expect(bySeq.get(4)?.carriedBy.map((entry) => entry.section)).toEqual(["Files read", "Names in use"]);
    expect(bySeq.get(5)?.carriedBy).toEqual([{ section: "Files read", text: "/repo/app.py #4" }]);
    expect(bySeq.get(5)?.what).toMatch(/^result of read_file\(\/repo\/app.py\)/);
  });

  it("puts a failing command and its result beside the command and the error", () => {
    expect(bySeq.get(7)?.failed).toBe(true);
    expect(bySeq.get(7)?.carriedBy.map((entry) => entry.section)).toEqual(["Commands", "Errors"]);
  });

  it("carries a user's correction as its note and marks text with nothing in the ledger as not carried", () => {
    expect(bySeq.get(3)?.carriedBy).toEqual([{ section: "User said", text: "use pytest, not unittest" }]);
    expect(bySeq.get(8)?.carriedBy).toEqual([]);
  });
});

function view(texts: string[]): ContextView {
  return {
    agentId: "a",
    messages: texts.map((content) => ({ role: "user", content })),
    marks: texts.map(() => "raw"),
    tokens: 100,
    rawTokens: 100,
    maxInputTokens: 8000,
    triggerTokens: 6000,
    saved: { collapse: 0, truncate: 0, microcompact: 0 },
    needsCompaction: false,
    compaction: null,
    state: null,
  };
}

describe("the next request checked against the compaction's ledger", () => {
  it("passes when the files written (relative to the ledger's root), the last error and the open TODOs are there", () => {
    const checks = requestChecks(
      ledger,
      view([
        "Paths below are relative to /repo/\nFiles changed: notes.md edited #8",
        "Last error: run_command npm test #6 exit 1 (unresolved): Error: 2 tests failed\nTODOs: [~] Fix the failing tests",
      ]),
    );
    expect(checks.map((check) => [check.what, check.ok])).toEqual([
      ["Files written", true],
      ["Last error", true],
      ["Open TODOs", true],
    ]);
  });

  it("fails naming what is missing, and has nothing to check for what the ledger lacks", () => {
    const checks = requestChecks({ ...ledger, errors: [] }, view(["TODOs: [~] something else"]));
    expect(checks[0]).toMatchObject({ ok: false, detail: "missing 1 of 1: /repo/notes.md" });
    expect(checks[1]).toMatchObject({ ok: null });
    expect(checks[2]).toMatchObject({ ok: false, detail: "missing 1 of 1: Fix the failing tests" });
  });
});
