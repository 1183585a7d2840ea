import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTokenizer, estimateMessageTokens, estimateToolsTokens } from "@longrun/compaction";
import type { ChatMessage } from "@longrun/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runReplayCommand } from "./command.ts";
import { requestFileName } from "./replay.ts";
import type { ReplayReport } from "./report.ts";
import type { ReplaySummary } from "./summary.ts";

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "longrun-replay-cost-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** An agent that inspects modules, then edits them one by one, naming what it read: forward use to measure. */
function session(name: string): ChatMessage[] {
  const lines: ChatMessage[] = [
    { role: "system", content: "You are a coding agent." },
    { role: "user", content: `Refactor the ${name} package.` },
  ];
  let id = 0;
  const call = (tool: string, args: Record<string, string>, result: string, text: string | null = null) => {
    const callId = `${name}_${id++}`;
    lines.push({
      role: "assistant",
      content: text,
      tool_calls: [
        { id: callId, type: "function", function: { name: tool, arguments: JSON.stringify(args) } },
      ],
    });
    lines.push({ role: "tool", tool_call_id: callId, content: result });
  };
  for (let module = 0; module < 16; module++) {
    const body = Array.from(
      { length: 30 },
      (_, line) => `export function ${name}Handler${module}_${line}(input_${line}) { return ${line}; }`,
    );
    // Not a read-only command, so collapse leaves it: the window fills and compaction runs.
    call("Bash", { command: `node inspect.js /repo/${name}/module_${module}.ts` }, body.join("\n"));
  }
  for (let module = 0; module < 16; module++) {
    call(
      "Edit",
      {
        file_path: `/repo/${name}/module_${module}.ts`,
        old_string: `${name}Handler${module}_0`,
        new_string: "x",
      },
      "The file has been updated.",
      `Now module_${module}.ts: ${name}Handler${module}_0 is unused.`,
    );
  }
  lines.push({ role: "assistant", content: `Done: module_0.ts to module_15.ts refactored.` });
  return lines;
}

/** Writes `session(name)` as scratch/<name>.jsonl and returns its path. */
async function writeSession(name: string): Promise<string> {
  const file = join(scratch, `${name}.jsonl`);
  await writeFile(
    file,
    `${session(name)
      .map((line) => JSON.stringify(line))
      .join("\n")}\n`,
  );
  return file;
}

async function command(args: string[]) {
  let stdout = "";
  const code = await runReplayCommand(args, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { isTTY: false, columns: 100, write: () => true },
  });
  return { code, stdout };
}

const readJson = async <T>(path: string): Promise<T> => JSON.parse(await readFile(path, "utf8")) as T;

describe("longrun replay: cost against the plain strategy, and forward-use recall", () => {
  it("prices every call by the prefix it shares with the previous one and reports the figures", async () => {
    const files = [await writeSession("alpha"), await writeSession("beta")];
    const outDir = join(scratch, "out");
    // Every summary call here is a compaction's own (background summaries: the next test).
    const result = await command([
      ...files,
      "--max-input-tokens",
      "6000",
      "--out",
      outDir,
      "--background-ratio",
      "0",
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /longrun [\d,]+ \/ [\d,]+, plain [\d,]+ \/ [\d,]+; longrun ÷ plain \d\.\d{3} \/ \d\.\d{3}/,
    );
    expect(result.stdout).toMatch(
      /forward-use recall .* whole \d\.\d{3}, without the summarizer's text \d\.\d{3}/,
    );
    expect(result.stdout).toMatch(/\n {4}pooled +\d\.\d{3} +\d\.\d{3} /);

    const report = await readJson<ReplayReport>(join(outDir, "alpha", "report.json"));
    const { cost, forwardUse } = report.totals;
    const tokenizer = createTokenizer("o200k_base");
    let previous: { system: string; messages: string[] } | null = null;
    let summaries = 0;
    let firstCompaction = -1;
    for (const [ordinal, step] of report.steps.entries()) {
      expect(step.status).toBe("ok");
      const main = step.cost?.main;
      if (!main) throw new Error(`step ${step.index} has no priced request`);
      // Billed input = cached × 0.1 + the rest × 1 (openai) or 1.25 (anthropic); the answer is
      // counted (the agent's output) but not billed: it is the same whatever compacts.
      expect(main.openai).toBeCloseTo(main.cacheRead * 0.1 + main.rest, 6);
      expect(main.anthropic).toBeCloseTo(main.cacheRead * 0.1 + main.rest * 1.25, 6);
      expect(main.output).toBeGreaterThan(0);
      const body = await readJson<{
        messages: ChatMessage[];
        tools: Parameters<typeof estimateToolsTokens>[0];
      }>(join(outDir, "alpha", "requests", requestFileName(step.index)));
      const [system, ...messages] = body.messages;
      const counts = messages.map((message) => estimateMessageTokens(message, tokenizer));
      const header =
        estimateMessageTokens(system as ChatMessage, tokenizer) + estimateToolsTokens(body.tools, tokenizer);
      expect(main.cacheRead + main.rest).toBe(header + counts.reduce((sum, count) => sum + count, 0));
      // The longest byte-identical message prefix of the previous request (a summary call extends it,
      // so after a compaction this is the prefix shared with the summary call too), header included.
      let shared = 0;
      while (
        previous !== null &&
        shared < messages.length &&
        JSON.stringify(messages[shared]) === previous.messages[shared]
      )
        shared++;
      const cached = header + counts.slice(0, shared).reduce((sum, count) => sum + count, 0);
      if (step.compaction) {
        summaries += 1;
        if (firstCompaction < 0) firstCompaction = ordinal;
        // The summary call continues the previous request (same system prompt, tools and messages): its
        // prefix is read from cache. The request after it shares the header and, when the task is
        // pinned, the task: it stays first, where it was, so the cache keeps serving it.
        expect(step.cost?.summary?.cacheRead).toBeGreaterThan(header);
        expect(step.cost?.summary?.output).toBeGreaterThan(0);
        expect(shared).toBeLessThanOrEqual(1);
        if (shared === 1) expect(messages[0]?.role).toBe("user");
        expect(main.cacheRead).toBe(cached);
      } else if (previous !== null) {
        expect(main.cacheRead).toBe(JSON.stringify(system) === previous.system ? cached : 0);
      }
      previous = {
        system: JSON.stringify(system),
        messages: messages.map((message) => JSON.stringify(message)),
      };
      // Forward-use recall is measured on every request from the first compaction on, never before.
      expect(step.forwardUse !== undefined).toBe(firstCompaction >= 0);
      if (step.forwardUse) {
        expect(step.forwardUse.withoutSummary).toBeLessThanOrEqual(step.forwardUse.whole);
        expect(step.forwardUse.whole).toBeLessThanOrEqual(step.forwardUse.needed);
      }
    }
    expect(summaries).toBeGreaterThan(0);
    const sum = (pick: (step: ReplayReport["steps"][number]) => number | undefined) =>
      report.steps.reduce((total, step) => total + (pick(step) ?? 0), 0);
    expect(cost.longrun.main.openai).toBeCloseTo(
      sum((step) => step.cost?.main?.openai),
      6,
    );
    expect(cost.longrun.summaries.anthropic).toBeCloseTo(
      sum((step) => step.cost?.summary?.anthropic),
      6,
    );
    expect(cost.longrun).toMatchObject({ compactions: summaries, summaryCalls: summaries, unsent: 0 });
    // The plain strategy compacted too, and its compactions are in the report with their sizes.
    expect(cost.plain.compactions).toBe(report.plain.compactions.length);
    expect(cost.plain.compactions).toBeGreaterThan(0);
    for (const compaction of report.plain.compactions) {
      expect(compaction.tokensBefore).toBeGreaterThan(Math.floor(6000 * 0.75));
      expect(compaction.tokensAfter).toBeLessThan(compaction.tokensBefore);
    }
    expect(cost.ratio.total.openai).toBeCloseTo(cost.longrun.total.openai / cost.plain.total.openai, 10);
    expect(cost.ratio.main.anthropic).toBeCloseTo(
      cost.longrun.main.anthropic / cost.plain.main.anthropic,
      10,
    );
    expect(cost.ratio.summaries.openai).toBeCloseTo(
      cost.longrun.summaries.openai / cost.plain.summaries.openai,
      10,
    );
    // The agent's answers are the same on both sides: counted once per request, priced only in withAnswers.
    expect(cost.longrun.answerTokens).toBe(sum((step) => step.cost?.main?.output));
    expect(cost.longrun.answerTokens).toBe(cost.plain.answerTokens);
    expect(cost.ratio.withAnswers.openai).toBeCloseTo(
      (cost.longrun.total.openai + 4 * cost.longrun.answerTokens) /
        (cost.plain.total.openai + 4 * cost.plain.answerTokens),
      10,
    );
    // The two counts are those of the per-compaction sizes and positions.
    const compacted = report.steps.map((step) => step.compaction);
    expect(cost.longrun.smallCompactions).toBe(
      compacted.filter((c) => c && c.tokensBefore - c.tokensAfter < c.tokensBefore * 0.2).length,
    );
    // Back-to-back: the call point before also compacted and sent nothing (no model step between).
    const sent = report.steps.map((step) => step.cost?.main !== undefined);
    expect(cost.longrun.backToBackCompactions).toBe(
      compacted.filter(
        (c, at) => c !== undefined && at > 0 && compacted[at - 1] !== undefined && !sent[at - 1],
      ).length,
    );
    // The edits name the modules read before the compaction: recall is measured and the ledger carries some.
    expect(forwardUse.forwardN).toBe(10);
    expect(forwardUse.requests).toBeGreaterThan(0);
    expect(forwardUse.whole).toBeGreaterThan(0);
    expect(forwardUse.withoutSummary).toBeGreaterThan(0);
    expect(forwardUse.withoutSummary).toBeLessThanOrEqual(forwardUse.whole ?? 0);

    // Pooled over both files: sums of the bills, ratio of the sums.
    const summary = await readJson<ReplaySummary>(join(outDir, "summary.json"));
    const beta = await readJson<ReplayReport>(join(outDir, "beta", "report.json"));
    const pooled = summary.cost.pooled;
    expect(pooled.longrun.total.openai).toBeCloseTo(
      cost.longrun.total.openai + beta.totals.cost.longrun.total.openai,
      6,
    );
    expect(pooled.ratio.total.anthropic).toBeCloseTo(
      pooled.longrun.total.anthropic / pooled.plain.total.anthropic,
      10,
    );
    expect(summary.forwardUse.pooled.requests).toBe(forwardUse.requests + beta.totals.forwardUse.requests);
  });

  it("models background summaries: asked for past the early line, priced at the step that asked, applied by the next compaction without a call of its own", async () => {
    const file = await writeSession("gamma");
    const other = await writeSession("epsilon");
    const outDir = join(scratch, "background");
    const result = await command([
      file,
      other,
      "--max-input-tokens",
      "6000",
      "--out",
      outDir,
      "--background-ratio",
      "0.8",
    ]);
    expect(result.code).toBe(0);
    const report = await readJson<ReplayReport>(join(outDir, "gamma", "report.json"));
    const asked = report.steps.filter((step) => step.prepared !== undefined);
    const applied = report.steps.filter((step) => step.compaction?.prepared === true);
    const compactions = report.steps.filter((step) => step.compaction !== undefined);
    expect(report.totals.background).toEqual({ started: asked.length, applied: applied.length });
    expect(applied.length).toBeGreaterThan(0);
    // A step that asks made no compaction; its summary call is on its own cost.
    for (const step of asked) {
      expect(step.compaction).toBeUndefined();
      expect(step.cost?.summary?.output).toBeGreaterThan(0);
    }
    // An applied compaction made no summary call; the others made theirs.
    for (const step of applied) expect(step.cost?.summary).toBeUndefined();
    for (const step of compactions.filter((step) => step.compaction?.prepared !== true)) {
      expect(step.cost?.summary?.output).toBeGreaterThan(0);
    }
    expect(report.totals.cost.longrun.summaryCalls).toBe(asked.length + compactions.length - applied.length);
    // Each applied one cuts after the end of a summary asked for earlier.
    for (const step of applied) {
      const earlier = asked.filter((ask) => ask.index < step.index).at(-1);
      expect(earlier).toBeDefined();
      const end = Number(earlier?.prepared?.cutoffMessageId.slice(4));
      expect(Number(step.compaction?.cutoffMessageId?.slice(4))).toBeGreaterThanOrEqual(end);
    }
    // Pooled over both files, and printed: made, applied.
    const second = await readJson<ReplayReport>(join(outDir, "epsilon", "report.json"));
    const summary = await readJson<ReplaySummary>(join(outDir, "summary.json"));
    expect(summary.background).toEqual({
      started: asked.length + second.totals.background.started,
      applied: applied.length + second.totals.background.applied,
    });
    expect(result.stdout).toContain(
      `background summaries: ${summary.background.applied} applied of ${summary.background.started} made`,
    );
  });

  it("costs exactly what the plain strategy costs when neither compacts (both send the same requests)", async () => {
    const file = await writeSession("delta");
    const outDir = join(scratch, "delta");
    expect((await command([file, "--max-input-tokens", "64000", "--out", outDir])).code).toBe(0);
    const { cost, forwardUse } = (await readJson<ReplayReport>(join(outDir, "report.json"))).totals;
    expect(cost.longrun.compactions + cost.plain.compactions).toBe(0);
    expect(cost.longrun.total.openai).toBeGreaterThan(0);
    expect(cost.longrun.total).toEqual(cost.plain.total);
    expect(cost.ratio.total).toEqual({ openai: 1, anthropic: 1 });
    expect(cost.ratio.summaries).toEqual({ openai: null, anthropic: null });
    expect(forwardUse).toMatchObject({ measured: 0, whole: null, withoutSummary: null });
  });

  it("prices output at --output-ratio and looks --forward-n assistant messages ahead", async () => {
    const file = await writeSession("gamma");
    const reports: ReplayReport[] = [];
    for (const extra of [[], ["--output-ratio", "1.5", "--forward-n", "2"]]) {
      const outDir = join(scratch, `gamma-${extra.length}`);
      expect((await command([file, "--max-input-tokens", "6000", "--out", outDir, ...extra])).code).toBe(0);
      reports.push(await readJson<ReplayReport>(join(outDir, "report.json")));
    }
    const [byDefault, changed] = reports as [ReplayReport, ReplayReport];
    expect(changed.totals.cost.outputRatio).toBe(1.5);
    for (const [at, step] of changed.steps.entries()) {
      const main = step.cost?.main;
      const before = byDefault.steps[at]?.cost?.main;
      expect(main?.openai).toBeCloseTo((main?.cacheRead ?? 0) * 0.1 + (main?.rest ?? 0), 6);
      const summary = step.cost?.summary;
      if (summary) {
        expect(summary.openai).toBeCloseTo(summary.cacheRead * 0.1 + summary.rest + summary.output * 1.5, 6);
      }
      // The same calls, only priced differently.
      expect(main?.cacheRead).toBe(before?.cacheRead);
      if (step.forwardUse) {
        expect(step.forwardUse.needed).toBeLessThanOrEqual(byDefault.steps[at]?.forwardUse?.needed ?? 0);
      }
    }
    expect(changed.totals.forwardUse.forwardN).toBe(2);
    expect(
      (await command([file, "--max-input-tokens", "6000", "--out", scratch, "--output-ratio", "x"])).code,
    ).toBe(2);
  });
});
