import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { ChatMessage } from "@longrun/protocol";
import { simTranscript, startTestSimModel, writeTranscript } from "@longrun/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runReplayCommand } from "./command.ts";
import { replayTranscript, requestFileName as requestFile } from "./replay.ts";
import type { ReplayReport } from "./report.ts";
import type { ReplaySummary } from "./summary.ts";
import { parseTranscript, readTranscript } from "./transcript.ts";

const run = promisify(execFile);
const REPO_ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
let scratch: string;
/** Sim explorer transcripts made for this file: 20 and 12 tool-calling turns (21 and 13 call points). */
let explorer20: string;
let explorer12: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "longrun-replay-cli-"));
  const sim = await startTestSimModel({ logBodies: false });
  try {
    explorer20 = await writeTranscript(
      join(scratch, "sim-explorer-20.jsonl"),
      await simTranscript({ baseURL: sim.baseURL, steps: 20 }),
    );
    explorer12 = await writeTranscript(
      join(scratch, "sim-explorer-12.jsonl"),
      await simTranscript({ baseURL: sim.baseURL, steps: 12 }),
    );
  } finally {
    await sim.close();
  }
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** Runs the command with captured output. */
async function command(args: string[], options: { tty?: boolean } = {}) {
  let stdout = "";
  let stderr = "";
  const code = await runReplayCommand(args, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { isTTY: options.tty ?? false, columns: 100, write: (text: string) => (stderr += text) },
  });
  return { code, stdout, stderr };
}

describe("longrun replay: flags and input errors", () => {
  it("prints help and exits 0", async () => {
    const result = await command(["--help"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      "Usage: longrun replay <transcript.jsonl>... --max-input-tokens N --out DIR",
    );
  });

  it.each([
    [[], "missing <transcript.jsonl>"],
    [["a.jsonl", "--out", "x"], "missing --max-input-tokens N"],
    [
      ["a.jsonl", "--max-input-tokens", "8k", "--out", "x"],
      '--max-input-tokens must be a positive integer, got "8k"',
    ],
    [["a.jsonl", "--max-input-tokens", "0", "--out", "x"], "must be a positive integer"],
    [["a.jsonl", "--max-input-tokens", "8000"], "missing --out DIR"],
    [["a.jsonl", "--max-input-tokens", "8000", "--out", "x", "--bogus"], "Unknown option '--bogus'"],
    [
      ["a/x.jsonl", "b/x.jsonl", "--max-input-tokens", "8000", "--out", "x"],
      'two transcripts named "x": their outputs would collide',
    ],
    [
      ["a.jsonl", "--max-input-tokens", "8000", "--out", "x", "--time-zone", "Mars/Olympus"],
      "unknown time zone",
    ],
  ])("bad usage %j exits 2 and says why", async (args, message) => {
    const result = await command(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain("--help");
  });

  it("names a missing file", async () => {
    const missing = join(scratch, "nope.jsonl");
    const result = await command([missing, "--max-input-tokens", "8000", "--out", join(scratch, "o")]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${missing}: no such file`);
  });

  it("names the line of bad JSON and of a message that is not a chat message", async () => {
    const badJson = join(scratch, "bad-json.jsonl");
    await writeFile(badJson, '{"role":"user","content":"hi"}\n\n{"role": "assistant", oops}\n');
    const first = await command([badJson, "--max-input-tokens", "8000", "--out", join(scratch, "o")]);
    expect(first.code).toBe(1);
    expect(first.stderr).toContain(`${badJson}:3: not valid JSON`);

    const badRole = join(scratch, "bad-role.jsonl");
    await writeFile(badRole, '{"role":"user","content":"hi"}\n{"role":"robot","content":"beep"}\n');
    const second = await command([badRole, "--max-input-tokens", "8000", "--out", join(scratch, "o")]);
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(new RegExp(`${badRole}:2: not a Chat Completions message \\(role: `));
  });

  it("takes the leading system message as the system prompt", () => {
    const transcript = parseTranscript(
      '{"role":"system","content":"be brief"}\n{"role":"user","content":"go"}\n{"role":"assistant","content":"ok"}\n',
      "inline",
    );
    expect(transcript.systemPrompt).toBe("be brief");
    expect(transcript.firstFactIndex).toBe(1);
  });
});

describe("longrun replay: output", () => {
  it("draws one updating progress line on a terminal and is deterministic", async () => {
    const file = explorer20;
    const first = join(scratch, "ctf-1");
    const second = join(scratch, "ctf-2");
    const tty = await command([file, "--max-input-tokens", "8000", "--out", first], { tty: true });
    expect(tty.code).toBe(0);
    expect(tty.stderr).toMatch(/^\rreplay sim-explorer-20\.jsonl \[/);
    expect(tty.stderr).toContain("100%  call points 21/21, compactions ");
    expect(tty.stderr.split("\n").filter((line) => line !== "")).toHaveLength(1);
    expect(tty.stdout).toContain("replayed 21 call points");

    const plain = await command([file, "--max-input-tokens", "8000", "--out", second]);
    expect(plain.code).toBe(0);
    const lines = plain.stderr.trim().split("\n");
    expect(lines.length).toBeGreaterThan(2);
    expect(lines.length).toBeLessThanOrEqual(12);
    expect(lines.at(-1)).toContain("100%  call points 21/21");

    // Same transcript, same window: byte-identical report and requests (fixed clock, ids, sim).
    const report = await readFile(join(first, "report.json"), "utf8");
    expect(await readFile(join(second, "report.json"), "utf8")).toBe(report);
    expect((JSON.parse(report) as ReplayReport).totals.compactions).toBeGreaterThan(0);
    const names = await readdir(join(first, "requests"));
    expect(names).toHaveLength(21);
    for (const name of names) {
      const [a, b] = await Promise.all([
        readFile(join(first, "requests", name), "utf8"),
        readFile(join(second, "requests", name), "utf8"),
      ]);
      expect(b, name).toBe(a);
    }
  });

  it("replays reasoning inside its chain only, never after a compaction (I5)", async () => {
    const lines: ChatMessage[] = [{ role: "user", content: "Study the files and report." }];
    for (let turn = 0; turn < 14; turn++) {
      const id = `call_${turn}`;
      lines.push({
        role: "assistant",
        content: `Reading part ${turn}.`,
        tool_calls: [
          // Not a read/search tool, so collapse leaves the calls (and their reasoning) alone.
          { id, type: "function", function: { name: "run_check", arguments: `{"part":${turn}}` } },
        ],
        reasoning_details: [{ type: "reasoning.text", text: `I should read part ${turn} next.` }],
        reasoning_content: `thinking about part ${turn}`,
      });
      const output = Array.from(
        { length: 60 },
        (_, line) => `check ${turn}.${line}: value ${(line * 7919 + turn) % 10007}`,
      );
      lines.push({ role: "tool", tool_call_id: id, content: output.join("\n") });
    }
    lines.push({ role: "assistant", content: "Done." });
    const file = join(scratch, "reasoning.jsonl");
    await writeFile(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
    const outDir = join(scratch, "reasoning-out");
    const report = await replayTranscript({
      transcript: await readTranscript(file),
      maxInputTokens: 4000,
      outDir,
    });

    const firstCompaction = report.steps.findIndex((step) => step.compaction !== undefined);
    expect(firstCompaction).toBeGreaterThan(1);
    for (const [ordinal, step] of report.steps.entries()) {
      expect(step.status).toBe("ok");
      const body = JSON.parse(
        await readFile(join(outDir, "requests", `${String(step.index).padStart(4, "0")}.json`), "utf8"),
      ) as { messages: ChatMessage[] };
      const carried = body.messages.filter((message) => message.reasoning_details !== undefined);
      if (ordinal < firstCompaction) {
        // Still the original chain: the assistant messages carry their reasoning.
        expect(carried.length).toBe(ordinal);
      } else {
        expect(carried).toEqual([]);
        expect(body.messages.some((message) => message.reasoning_content !== undefined)).toBe(false);
      }
    }
    const history = await readFile(join(outDir, "history.jsonl"), "utf8");
    expect(history).not.toContain("reasoning");
    expect(history).toContain("call_0");
  });

  it("reports what a request still knows after compaction, per request and pooled over transcripts", async () => {
    // An agent writes files, a command fails, it reads docs, then long builds fill the window.
    const write = (name: string): string[] => {
      const lines: ChatMessage[] = [{ role: "user", content: `Build the ${name} module.` }];
      let id = 0;
      const call = (tool: string, args: unknown, result: string) => {
        const callId = `${name}_${id++}`;
        lines.push({
          role: "assistant",
          content: null,
          tool_calls: [
            { id: callId, type: "function", function: { name: tool, arguments: JSON.stringify(args) } },
          ],
        });
        lines.push({ role: "tool", tool_call_id: callId, content: result });
      };
      call(
        "Write",
        { file_path: `/repo/${name}/index.ts`, content: "export {}" },
        "File created successfully",
      );
      call(
        "Edit",
        { file_path: `/repo/${name}/util.ts`, old_string: "a", new_string: "b" },
        "The file has been updated.",
      );
      call("Bash", { command: "npm test" }, "Exit code 1\nFAIL util.test.ts: expected 2 got 3");
      for (let read = 0; read < 3; read++)
        call("Read", { file_path: `/repo/docs/${name}-${read}.md` }, "notes");
      // Then it runs commands with long outputs until the window fills.
      for (let run = 0; run < 24; run++) {
        const output = Array.from(
          { length: 40 },
          (_, line) => `build ${run}.${line}: compiled ${name} unit ${line}`,
        );
        call("Bash", { command: `make step-${run}` }, output.join("\n"));
      }
      lines.push({ role: "assistant", content: "Done." });
      return lines.map((line) => JSON.stringify(line));
    };
    const files = ["alpha", "beta"].map((name) => join(scratch, `${name}.jsonl`));
    await writeFile(files[0] as string, `${write("alpha").join("\n")}\n`);
    await writeFile(files[1] as string, `${write("beta").join("\n")}\n`);
    const outDir = join(scratch, "retention");
    const result = await command([...files, "--max-input-tokens", "6000", "--out", outDir]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/all 2 transcripts at 6000: \d+ call points, \d+ compactions, 0 refused/);

    const report = JSON.parse(await readFile(join(outDir, "alpha", "report.json"), "utf8")) as ReplayReport;
    const first = report.steps.findIndex((step) => step.compaction !== undefined);
    expect(first).toBeGreaterThan(0);
    // No retention before the first compaction; after it, every request is measured.
    expect(report.steps.slice(0, first).every((step) => step.retention === undefined)).toBe(true);
    const after = report.steps.slice(first);
    expect(after.every((step) => step.retention !== undefined)).toBe(true);
    // The compacted write, edit and failing test are carried by the ledger: nothing was lost.
    for (const step of after) {
      expect(step.retention?.filesWritten).toEqual({ present: 2, total: 2 });
      expect(step.retention?.lastError).toEqual({ present: 1, total: 1 });
      expect(step.retention?.filesRead.present).toBe(step.retention?.filesRead.total);
    }
    expect(report.totals.retention.filesWritten.mean).toBe(1);
    expect(report.totals.retention.todos).toMatchObject({ mean: null, requests: 0 });
    expect(after[0]?.compaction?.ledgerTokens).toBeGreaterThan(0);

    const summary = JSON.parse(await readFile(join(outDir, "summary.json"), "utf8")) as ReplaySummary;
    expect(summary.transcripts).toBe(2);
    expect(summary.retention.filesWritten).toMatchObject({ mean: 1, min: 1 });
    expect(summary.ledgerTokens?.count).toBe(summary.compactions);
  });

  it("with --unrecorded-status, a command whose output shows no outcome is unknown in the ledger, not ok", async () => {
    // A log without exit codes or statuses (a Cline export): a failure in words, then quiet builds.
    const lines: ChatMessage[] = [{ role: "user", content: "Build it." }];
    const call = (index: number, command: string, result: string) => {
      lines.push({
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: `c${index}`,
            type: "function",
            function: { name: "execute_command", arguments: JSON.stringify({ command }) },
          },
        ],
      });
      lines.push({ role: "tool", tool_call_id: `c${index}`, content: result });
    };
    call(0, "shard-sd -o out.md in.md", "Command executed.\nOutput:\nzsh: command not found: shard-sd");
    for (let run = 1; run < 24; run++) {
      const output = Array.from({ length: 40 }, (_, line) => `step ${run}.${line}: wrote chunk ${line}`);
      call(run, `./build.sh part-${run}`, `Command executed.\nOutput:\n${output.join("\n")}`);
    }
    lines.push({ role: "assistant", content: "Done." });
    const file = join(scratch, "no-status.jsonl");
    await writeFile(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
    const ledgerLines = async (flags: string[], outDir: string) => {
      const result = await command([file, "--max-input-tokens", "6000", "--out", outDir, ...flags]);
      expect(result.code).toBe(0);
      const names = (await readdir(join(outDir, "requests"))).sort();
      const last = JSON.parse(
        await readFile(join(outDir, "requests", names[names.length - 1] as string), "utf8"),
      ) as {
        messages: ChatMessage[];
      };
      const text = last.messages.map((message) => String(message.content)).join("\n");
      return text
        .split("\n")
        .filter((line) => line.startsWith("Commands run") || line.startsWith("Last error"));
    };
    const unknown = await ledgerLines(["--unrecorded-status"], join(scratch, "unrecorded"));
    expect(unknown.find((line) => line.startsWith("Last error"))).toContain(
      "zsh: command not found: shard-sd",
    );
    // The replay checks each compaction's ledger against the results: none claims what they do not show.
    const report = JSON.parse(
      await readFile(join(scratch, "unrecorded", "report.json"), "utf8"),
    ) as ReplayReport;
    const compactions = report.steps.flatMap((step) => (step.compaction ? [step.compaction] : []));
    expect(compactions.length).toBeGreaterThan(0);
    expect(compactions.map((compaction) => compaction.unshownOutcomes)).toEqual(compactions.map(() => 0));
    expect(report.totals.unshownOutcomes).toBe(0);
    const commands = unknown.find((line) => line.startsWith("Commands run")) as string;
    expect(commands).toMatch(/`\.\/build\.sh part-\d+` \?/);
    expect(commands).not.toMatch(/`\.\/build\.sh part-\d+` (?:ok|0)\b/);
    // Without the flag a result that happened is taken as ok, as before; the failure is still failed.
    const recorded = await ledgerLines([], join(scratch, "recorded"));
    expect(recorded.find((line) => line.startsWith("Commands run"))).toMatch(/`\.\/build\.sh part-\d+` ok\b/);
    expect(recorded.find((line) => line.startsWith("Last error"))).toContain(
      "zsh: command not found: shard-sd",
    );
  });

  it("reports per step how much of the request a prefix cache could serve, against an append-only history", async () => {
    // An agent reads many files: collapse has work once the window fills, so reductions come due.
    const lines: ChatMessage[] = [{ role: "user", content: "Survey the repository." }];
    for (let read = 0; read < 40; read++) {
      const callId = `read_${read}`;
      lines.push({
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: callId,
            type: "function",
            function: { name: "Read", arguments: JSON.stringify({ file_path: `/repo/src/m${read}.ts` }) },
          },
        ],
      });
      const body = Array.from({ length: 30 }, (_, line) => `export const v${read}_${line} = ${line};`);
      lines.push({ role: "tool", tool_call_id: callId, content: body.join("\n") });
    }
    lines.push({ role: "assistant", content: "Done." });
    const file = join(scratch, "reads.jsonl");
    await writeFile(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);

    const reports: ReplayReport[] = [];
    // The default threshold, one that only rewrites to fit, and one that rewrites for any saving.
    for (const threshold of [undefined, 1_000_000, 1]) {
      const outDir = join(scratch, `cache-${threshold ?? "default"}`);
      const args = [file, "--max-input-tokens", "6000", "--out", outDir];
      const result = await command(
        threshold === undefined ? args : [...args, "--rewrite-min-tokens", String(threshold)],
      );
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/cache: cacheable-prefix share 0\.\d{3}, append-only share 0\.\d{3}/);
      const report = JSON.parse(await readFile(join(outDir, "report.json"), "utf8")) as ReplayReport;
      reports.push(report);
      let previous: ChatMessage[] | null = null;
      for (const step of report.steps) {
        const body = JSON.parse(
          await readFile(join(outDir, "requests", requestFile(step.index)), "utf8"),
        ) as {
          messages: ChatMessage[];
        };
        // Measured on every written request after the first, except right after a compaction.
        expect(step.cache === undefined).toBe(previous === null || step.compaction !== undefined);
        if (step.cache && previous) {
          const extends_ = previous.every(
            (message, index) => JSON.stringify(message) === JSON.stringify(body.messages[index]),
          );
          // An extension of the previous request is cached whole; only a reported rewrite breaks it.
          expect(step.cache.firstChanged === step.cache.previousMessages).toBe(extends_);
          if (!extends_) expect(step.rewrite).toBeDefined();
          expect(step.cache.cachedTokens).toBeLessThanOrEqual(step.cache.requestTokens);
        }
        previous = body.messages;
      }
      const { cache } = report.totals;
      expect(cache.steps).toBe(report.steps.filter((step) => step.cache).length);
      expect(cache.cacheableShare).toBeLessThanOrEqual(cache.appendOnlyShare ?? 0);
      expect(cache.ratio).toBeCloseTo((cache.cacheableShare ?? 0) / (cache.appendOnlyShare ?? 1), 10);
    }
    const [byDefault, lazy, eager] = reports as [ReplayReport, ReplayReport, ReplayReport];
    // Rewriting as soon as anything is due breaks the cache earlier (and never less often) than
    // waiting until the request would not fit; the threshold never changes when LLM compaction runs.
    expect(eager.totals.cache.rewrites).toBeGreaterThanOrEqual(lazy.totals.cache.rewrites);
    expect(lazy.totals.cache.cacheableShare).toBeGreaterThan(eager.totals.cache.cacheableShare ?? 1);
    expect(byDefault.totals.cache.cacheableShare).toBeGreaterThanOrEqual(
      eager.totals.cache.cacheableShare ?? 1,
    );
    expect(new Set(reports.map((report) => report.totals.compactions)).size).toBe(1);
  });

  it("anchors each request's pressure on the usage a provider reports for the answer before it, as a live run does", async () => {
    const outDir = join(scratch, "usage-anchor");
    const result = await command([explorer20, "--max-input-tokens", "128000", "--out", outDir]);
    expect(result.code).toBe(0);
    const report = JSON.parse(await readFile(join(outDir, "report.json"), "utf8")) as ReplayReport;
    const [first, ...rest] = report.steps;
    const sent = (step: ReplayReport["steps"][number]) =>
      (step.cost?.main?.cacheRead ?? 0) + (step.cost?.main?.rest ?? 0);
    // Nothing has answered yet: the first request is a padded estimate (ESTIMATE_PAD, 1.1) ...
    expect(first?.projectedTokens).toBe(Math.ceil(sent(first as ReplayReport["steps"][number]) * 1.1));
    // ... every later one the previous answer's usage (the request it answered, counted, plus its
    // output) and the messages after it: what is sent, not 10 % more.
    expect(rest.length).toBeGreaterThan(10);
    for (const step of rest) expect(step.projectedTokens, `call point ${step.index}`).toBe(sent(step));
  });

  it("runs as a subprocess: longrun replay …", { timeout: 120_000 }, async () => {
    const outDir = join(scratch, "smoke");
    const result = await run(
      process.execPath,
      ["packages/cli/bin/longrun.js", "replay", explorer12, "--max-input-tokens", "16000", "--out", outDir],
      { cwd: REPO_ROOT, timeout: 110_000 },
    );
    expect(result.stdout).toContain("replayed 13 call points");
    const report = JSON.parse(await readFile(join(outDir, "report.json"), "utf8")) as ReplayReport;
    expect(report.steps).toHaveLength(13);
    expect(report.totals.fits).toBe(13);
    expect(await readdir(join(outDir, "requests"))).toHaveLength(13);
  });
});
