import type { Ledger } from "@longrun/protocol";
import { contentText } from "@longrun/protocol";
import { describe, expect, it } from "vitest";
import { buildSummaryMessage } from "../summary-message.ts";
import { markUnverifiedClaims } from "./unverified-claims.ts";
import { emptyLedger } from "./update-ledger.ts";

function ledgerWith(parts: Partial<Ledger>): Ledger {
  return { ...emptyLedger(), ...parts };
}

const worked = ledgerWith({
  changedFiles: [
    { path: "/testbed/astroid/modutils.py", action: "edited", step: 40 },
    { path: "reproduce.py", action: "created", step: 12 },
  ],
  commands: [
    { command: "python reproduce.py", exitCode: 1, outcome: "failed", step: 14 },
    { command: "python -m pytest tests/test_modutils.py -q", exitCode: 0, outcome: "ok", step: 52 },
  ],
});

describe("markUnverifiedClaims", () => {
  it("leaves cited completions alone: changed files (by name or path) and passing tests", () => {
    const text = [
      "## Progress",
      "- Created `reproduce.py` to show the crash.",
      "- Fixed the namespace lookup in astroid/modutils.py (is_namespace now checks the spec origin).",
      "- modutils.py was updated to handle None origins.",
      "- All tests pass after the fix.",
    ].join("\n");
    expect(markUnverifiedClaims(text, worked)).toBe(text);
  });

  it("marks a file the log does not show as changed, and tests passing without a passing run", () => {
    const failing = ledgerWith({
      changedFiles: worked.changedFiles,
      commands: [
        { command: "npx vitest run src/parse.test.ts", exitCode: null, outcome: "failed", step: 30 },
      ],
    });
    const text = "I fixed the off-by-one in src/parse.ts, and the tests now pass.";
    expect(markUnverifiedClaims(text, failing)).toBe(
      "I fixed the off-by-one in src/parse.ts [unverified: the log shows no change to src/parse.ts], and the tests now pass [unverified: the last test run #30 failed].",
    );
    const noRun = ledgerWith({ changedFiles: worked.changedFiles });
    expect(markUnverifiedClaims("Tests pass.", noRun)).toBe(
      "Tests pass [unverified: no test run in the log].",
    );
    const unknown = ledgerWith({
      commands: [{ command: "go test ./...", exitCode: null, outcome: "unknown", step: 8 }],
    });
    expect(markUnverifiedClaims("All tests passed.", unknown)).toBe(
      "All tests passed [unverified: the last test run #8 shows no outcome].",
    );
  });

  it("does not mark intentions, negations, conditions, product names or what the ledger could not see", () => {
    const text = [
      "Next step: need to fix src/lexer.ts so the tests pass.",
      "The parser.py module was not modified yet.",
      "We have not created docs/guide.md.",
      "Created a Next.js app skeleton earlier.",
      "Run the suite until all tests pass.",
      "Created a reproduction script based on the example in docs/README.md.",
    ].join("\n");
    expect(markUnverifiedClaims(text, worked)).toBe(text);
    // No change seen at all: the ledger may not know this agent's editing tools.
    expect(markUnverifiedClaims("Fixed src/parse.ts.", emptyLedger())).toBe("Fixed src/parse.ts.");
    // Older commands fell off a full list: a passing run may be among them.
    const full = ledgerWith({
      changedFiles: worked.changedFiles,
      commands: Array.from({ length: 30 }, (_, step) => ({
        command: `make step${step}`,
        exitCode: 0,
        outcome: "ok" as const,
        step,
      })),
    });
    expect(markUnverifiedClaims("All tests pass.", full)).toBe("All tests pass.");
  });

  it("marks once: a summary folded again keeps its marks and gains no second one", () => {
    const once = markUnverifiedClaims("Created notes/plan.md.", worked);
    expect(once).toBe("Created notes/plan.md [unverified: the log shows no change to notes/plan.md].");
    expect(markUnverifiedClaims(once, worked)).toBe(once);
  });
});

describe("buildSummaryMessage with the ledger", () => {
  it("marks the summarizer's text, not the ledger block", () => {
    const message = buildSummaryMessage(
      "Rewrote config/settings.yaml and all tests pass.",
      { strategy: "partial", summarizedMessages: 10 },
      "[Working state — recorded by the runtime from the log, not summarized; #N = step]\nFiles changed: reproduce.py created #12\n[End of working state]",
      worked,
    );
    const text = contentText(message.content);
    expect(text).toContain(
      "Rewrote config/settings.yaml [unverified: the log shows no change to config/settings.yaml] and all tests pass.",
    );
    expect(text).toContain("Files changed: reproduce.py created #12");
  });
});
