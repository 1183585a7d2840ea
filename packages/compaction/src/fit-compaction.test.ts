import type { CompactionEvent, ModelProfile, StoredMessage } from "@longrun/protocol";
import { describe, expect, it } from "vitest";
import { type FittedFields, fitCompaction, refitCompaction } from "./fit-compaction.ts";
import { LEDGER_HEADER } from "./ledger/render-ledger.ts";
import { updateLedger } from "./ledger/update-ledger.ts";
import { compactionFields, planCompaction } from "./plan-compaction.ts";
import { type ProjectionInput, project } from "./project.ts";
import { DEFAULT_RESTORATION_BUDGETS, type RestoredFile } from "./restoration.ts";
import { SUMMARY_HEADER, summaryFrameOf, summaryTextOf } from "./summary-message.ts";
import { createTokenizer } from "./tokenizer.ts";

const tokenizer = createTokenizer("o200k_base");

/** A session: the task, then each step writes a file and runs a command; the third command fails. */
function session(steps: number, resultLines = 30, task = "Refactor the parser."): StoredMessage[] {
  const facts: StoredMessage[] = [];
  const push = (fact: Omit<StoredMessage, "id" | "agentId" | "seq" | "tokenCount" | "createdAt">) => {
    const seq = facts.length;
    facts.push({ ...fact, id: `f${seq}`, agentId: "a", seq, tokenCount: 0, createdAt: 1_000 + seq });
  };
  push({ role: "user", content: task });
  for (let step = 0; step < steps; step++) {
    const write = { id: `w${step}`, type: "function" as const };
    push({
      role: "assistant",
      content: `Step ${step}.`,
      toolCalls: [
        {
          ...write,
          function: {
            name: "write_file",
            arguments: JSON.stringify({ path: `src/m${step}.ts`, content: "x" }),
          },
        },
      ],
    });
    push({ role: "tool", toolCallId: `w${step}`, toolStatus: "ok", content: `Created src/m${step}.ts` });
    const failing = step === 2;
    push({
      role: "assistant",
      content: null,
      toolCalls: [
        {
          id: `r${step}`,
          type: "function",
          function: { name: "run_command", arguments: `{"command":"npm test -- m${step}"}` },
        },
      ],
    });
    push({
      role: "tool",
      toolCallId: `r${step}`,
      toolStatus: failing ? "error" : "ok",
      content: `${failing ? "TypeError: m is not a function\n" : ""}${"test output line\n".repeat(resultLines)}[exit code: ${failing ? 1 : 0}]`,
    });
  }
  return facts;
}

function setup(facts: StoredMessage[], profile: Partial<ModelProfile>) {
  const input: ProjectionInput = {
    systemPrompt: "You are an agent.",
    messages: facts,
    compaction: null,
    state: null,
    profile,
    now: 10_000,
    tokenizer,
  };
  const plan = planCompaction(input, { timeZone: "UTC", noProgress: "plan" });
  if (!plan) throw new Error("expected a plan");
  const retained = facts.filter((fact) => fact.seq >= plan.cutoffIndex);
  const draft = (fields: FittedFields): CompactionEvent => ({
    id: "c1",
    agentId: "a",
    ...compactionFields(plan, "unused"),
    summaryMessage: fields.summaryMessage,
    ledger: fields.ledger,
    shrunk: fields.shrunk,
    historyFile: ".longrun/history/t/a.jsonl",
    trigger: "auto",
    tokensBefore: 0,
    tokensAfter: 0,
    restored: fields.restored,
    createdAt: 20_000,
  });
  const restoredFilesOf = (event: CompactionEvent): RestoredFile[] =>
    event.restored.map((item) => ({
      path: item.path ?? "",
      content: item.content ?? "",
      readAt: event.createdAt,
      fitted: item.fitted === true,
    }));
  const measure = (fields: FittedFields) => {
    const event = draft(fields);
    return project({
      ...input,
      messages: retained,
      compaction: event,
      restoredFiles: restoredFilesOf(event),
    });
  };
  return { plan, measure, draft };
}

const file = (path: string, lines: number): RestoredFile => ({
  path,
  content: Array.from({ length: lines }, (_, line) => `export const v${line} = ${line};`).join("\n"),
  readAt: 20_000,
});

describe("fitCompaction", () => {
  it("puts the ledger in its own block after the summarizer's text; the next summary sees the text only", () => {
    const profile = { maxInputTokens: 8_000 };
    const { plan, measure } = setup(session(12), profile);
    const fit = fitCompaction({
      plan,
      summaryText: "Task: refactor. State: tests written.",
      ledger: updateLedger({ messages: plan.ledgerSources }),
      files: [],
      restorationCap: DEFAULT_RESTORATION_BUDGETS,
      historyFile: null,
      profile,
      tokenizer,
      measure,
    });
    const text = String(fit.fields.summaryMessage.content);
    expect(text.startsWith(SUMMARY_HEADER)).toBe(true);
    expect(text.indexOf("Task: refactor.")).toBeLessThan(text.indexOf(LEDGER_HEADER));
    expect(text).toContain("src/m0.ts created #1");
    expect(text).toMatch(
      /Last error: run_command `npm test -- m2` #11 exit 1 \(resolved #15\): TypeError: m is not a function/,
    );
    expect(fit.ledgerTokens).toBeGreaterThan(0);
    expect(summaryTextOf(fit.fields.summaryMessage)).not.toContain(LEDGER_HEADER);
    expect(summaryTextOf(fit.fields.summaryMessage)).toContain("Task: refactor.");
    expect(fit.fields.shrunk).toEqual([]);
    expect(fit.verdict).toEqual({ ok: true });
  });

  it("gives restored files only what the post-compaction target leaves", () => {
    const profile = { maxInputTokens: 16_000 };
    const { plan, measure } = setup(session(12), profile);
    const base = {
      plan,
      ledger: updateLedger({ messages: plan.ledgerSources }),
      restorationCap: { maxFiles: 5, perFileTokens: 400, totalTokens: 800 },
      historyFile: null,
      profile,
      tokenizer,
      measure,
      files: [file("src/a.ts", 200), file("src/b.ts", 200)],
    };
    const roomy = fitCompaction({ ...base, summaryText: "Short summary." });
    expect(roomy.fields.restored.map((item) => item.path)).toEqual(["src/a.ts", "src/b.ts"]);
    expect(roomy.fields.restored.every((item) => item.fitted === true)).toBe(true);
    // The same files, but the summary already fills the fifth-of-a-window target: nothing is restored.
    const tight = fitCompaction({ ...base, summaryText: "Long summary line.\n".repeat(900) });
    expect(tight.fields.restored).toEqual([]);
    expect(tight.fields.shrunk.map((shrink) => shrink.what)).toEqual([]);
  });

  it("shrinks in order — restored files, summary text, ledger, the whole summary — and says so", () => {
    // A task message so large that only the verbatim part fits a 4k window.
    const profile = { maxInputTokens: 4_000 };
    const facts = session(6, 20, `Refactor the parser.\n${"Constraint: keep the API stable.\n".repeat(330)}`);
    const { plan, measure } = setup(facts, profile);
    const fit = fitCompaction({
      plan,
      summaryText: "Paragraph one of the summary.\n\n".repeat(60),
      ledger: updateLedger({ messages: plan.ledgerSources }),
      files: [file("src/a.ts", 100)],
      restorationCap: { maxFiles: 5, perFileTokens: 2_000, totalTokens: 4_000 },
      historyFile: ".longrun/history/t/a.jsonl",
      profile,
      tokenizer,
      measure,
    });
    const rank = (shrink: { what: string; detail: string }) =>
      shrink.what === "restored_files"
        ? 0
        : shrink.what === "ledger"
          ? 2
          : shrink.detail.includes("left out")
            ? 3
            : 1;
    const ranks = fit.fields.shrunk.map(rank);
    expect(ranks.length).toBeGreaterThan(0);
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    // No room was left for the file (budgeted as a whole), so the summary text is the first to go.
    expect(fit.fields.restored).toEqual([]);
    expect(fit.fields.shrunk[0]).toMatchObject({ what: "summary" });
    const kept = String(fit.fields.summaryMessage.content).split("Paragraph one").length - 1;
    expect(kept).toBeLessThan(60);
    for (const shrink of fit.fields.shrunk)
      expect(shrink.tokensAfter).toBeLessThanOrEqual(shrink.tokensBefore);
    expect(fit.verbatim.tokens).toBeLessThanOrEqual(fit.projection.limitTokens);
    expect(fit.verdict).toEqual({ ok: true });
    // The ledger itself is kept whole in the event, whatever was cut from the text.
    expect(fit.fields.ledger.changedFiles.length).toBeGreaterThan(0);
  });

  it("refuses only when the verbatim part alone is over the limit", () => {
    const profile = { maxInputTokens: 2_000 };
    const facts = session(4, 10, `Do it.\n${"A very long requirement line.\n".repeat(600)}`);
    const { plan, measure } = setup(facts, profile);
    const fit = fitCompaction({
      plan,
      summaryText: "Summary.",
      ledger: updateLedger({ messages: plan.ledgerSources }),
      files: [],
      restorationCap: DEFAULT_RESTORATION_BUDGETS,
      historyFile: null,
      profile,
      tokenizer,
      measure,
    });
    expect(fit.verdict.ok).toBe(false);
    expect(fit.verbatim.tokens).toBeGreaterThan(fit.projection.limitTokens);
    expect(fit.fields.shrunk.at(-1)?.detail).toMatch(/summary message left out/);
  });

  it("refits the compaction in force: same header and closing line, a shorter text, the ledger kept", () => {
    const roomyProfile = { maxInputTokens: 16_000 };
    const { plan, measure: roomyMeasure } = setup(session(12), roomyProfile);
    const ledger = updateLedger({ messages: plan.ledgerSources });
    const common = {
      ledger,
      files: [],
      restorationCap: DEFAULT_RESTORATION_BUDGETS,
      historyFile: ".longrun/history/t/a.jsonl",
      tokenizer,
    };
    const longText = "Paragraph of what happened so far.\n\n".repeat(500).trim();
    const first = fitCompaction({
      ...common,
      plan,
      summaryText: longText,
      profile: roomyProfile,
      measure: roomyMeasure,
    });
    expect(first.fields.shrunk).toEqual([]);
    const original = String(first.fields.summaryMessage.content);

    // Nothing new to summarize, but the window is now smaller than the summary and the kept tail.
    const tightProfile = { maxInputTokens: 4_000 };
    const { measure: tightMeasure } = setup(session(12), tightProfile);
    expect(tightMeasure(first.fields).tokens).toBeGreaterThan(tightMeasure(first.fields).limitTokens);
    const refit = refitCompaction({
      ...common,
      summaryMessage: first.fields.summaryMessage,
      profile: tightProfile,
      measure: tightMeasure,
    });
    const text = String(refit.fields.summaryMessage.content);
    expect(refit.verdict).toEqual({ ok: true });
    expect(refit.fields.shrunk.map((shrink) => shrink.what)).toContain("summary");
    expect(text.split("\n")[0]).toBe(original.split("\n")[0]);
    expect(text.split("\n")[1]).toBe(original.split("\n")[1]);
    expect(text.split("\n\n").at(-1)).toBe(original.split("\n\n").at(-1));
    expect(text).toContain("[Summary cut to fit the window");
    expect(text.split("Paragraph of what happened").length).toBeLessThan(500);
    // Taken apart again, the frame gives back the text it was built from (no header, no ledger).
    const frame = summaryFrameOf(refit.fields.summaryMessage);
    expect(frame.text.startsWith("Paragraph of what happened")).toBe(true);
    expect(frame.text).not.toContain(SUMMARY_HEADER);
    expect(frame.text).not.toContain(LEDGER_HEADER);
  });
});
