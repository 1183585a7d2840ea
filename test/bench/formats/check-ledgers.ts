import { readdir, readFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { parseArgs } from "node:util";
import { type ChatMessage, contentText } from "@longrun/protocol";
import type { CallTruth } from "./openhands.ts";

/**
 * A check of what `longrun replay` kept, written apart from the ledger's own reading of results (it
 * shares no code with packages/compaction): which results failed comes from the log's recorded exit
 * codes and error events (`<formats>/truth/`), and for results that record none, from a few words of
 * this file's own. Per request after the first compaction it asks: is the last failing result's
 * failure line (or, without one, its command) in the request; does any ledger entry claim `ok`, exit 0
 * or a change for a call whose result failed?
 *
 *   npx tsx test/bench/formats/check-ledgers.ts --formats .scratch/formats --out .scratch/f8
 */
const { values } = parseArgs({ options: { formats: { type: "string" }, out: { type: "string" } } });
if (!values.formats || !values.out) throw new Error("usage: --formats DIR --out REPLAY_OUT_DIR");

/** Words a failure line carries, in this checker's own judgement. */
const FAILURE_LINE =
  /\b(?:error|errors|fail|failed|failure|fatal|exception|traceback|not found|no such|denied|invalid|cannot|can't|incomplete|undefined|unresolved|refused|missing|did not appear|does not exist|is required|timed out)\b/i;
/** A result without a recorded code that says it failed: on its first line (any tool), or a shell's complaint or a traceback in a command's output. */
const FAILED_FIRST_LINE =
  /^(?:ERROR:|Error:|error:|\[ERROR\]|The tool execution failed|No such file or directory)/;
const FAILED_OUTPUT_LINE =
  /^(?:[\w./-]+: )*(?:line \d+: )?(?:\S+: )?(?:command not found|No such file or directory)\b|^Traceback \(most recent call last\)|^(?:zsh|bash|sh): command not found: /m;
/** Tools whose answer is someone else's text (a file's lines): only its first line is the tool's voice. */
const READERS = /^(?:read_file|view|read|open|cat)$/;

function failedInWords(tool: string, text: string): boolean {
  const output = text.replace(/^\s*Command executed\b[^\n]*\n(?:Output:[ \t]*\n?)?/, "");
  const first = output.split("\n").find((line) => line.trim() !== "") ?? "";
  if (FAILED_FIRST_LINE.test(first.trim())) return true;
  return !READERS.test(tool) && FAILED_OUTPUT_LINE.test(output);
}

interface Result {
  index: number;
  callIndex: number;
  command: string;
  text: string;
  failed: boolean;
  lines: string[];
}

function flat(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function readResults(messages: readonly ChatMessage[], truth: readonly CallTruth[]): Result[] {
  const byId = new Map(truth.map((entry) => [entry.toolCallId, entry]));
  const callAt = new Map<string, { index: number; command: string; tool: string }>();
  const results: Result[] = [];
  messages.forEach((message, index) => {
    for (const call of message.tool_calls ?? []) {
      let command = call.function.arguments;
      try {
        const args = JSON.parse(call.function.arguments) as Record<string, unknown>;
        command = String(args.command ?? args.path ?? command);
      } catch {
        // Arguments that are not JSON: the raw text is the command.
      }
      callAt.set(call.id, { index, command, tool: call.function.name });
    }
    if (message.role !== "tool" || message.tool_call_id === undefined) return;
    const text = contentText(message.content);
    const recorded = byId.get(message.tool_call_id);
    const call = callAt.get(message.tool_call_id);
    // grep and find exit 1 when they find nothing: with no output, that is an answer, not a failure.
    const foundNothing =
      recorded?.exitCode === 1 &&
      text.replace(/\[The command completed with exit code 1\.\]/, "").trim() === "" &&
      /^\s*(?:grep|find|rg)\b/.test(call?.command ?? "");
    const failed =
      recorded?.errorEvent === true ||
      (recorded?.exitCode !== null && recorded?.exitCode !== undefined
        ? recorded.exitCode !== 0 && !foundNothing
        : failedInWords(call?.tool ?? "", text));
    const lines = text
      .split("\n")
      .map(flat)
      .filter(
        (line) =>
          line.length > 0 && FAILURE_LINE.test(line) && !/\b(?:Failures|Errors): 0, Errors: 0\b/.test(line),
      );
    results.push({ index, callIndex: call?.index ?? -1, command: call?.command ?? "", text, failed, lines });
  });
  return results;
}

/** Whether the request still tells the failure: one of its failure lines (the first 60 characters suffice: ledgers clip), else its command. */
function kept(request: string, result: Result): boolean {
  const probes = result.lines.length > 0 ? result.lines : [flat(result.command)];
  return probes.some((probe) => request.includes(probe.slice(0, 60)));
}

/** Ledger command entries: `cmd` outcome #step, from the `Commands run` line. */
function commandClaims(request: string): { command: string; outcome: string; step: number }[] {
  const line = request.split("\n").find((text) => text.startsWith("Commands run"));
  if (!line) return [];
  return [...line.matchAll(/`((?:[^`]|``)*)` ([^#;]+?) #(\d+)/g)].map((match) => ({
    command: match[1] as string,
    outcome: (match[2] as string).trim(),
    step: Number(match[3]),
  }));
}

function changedClaims(request: string): number[] {
  const line = request.split("\n").find((text) => text.startsWith("Files changed"));
  if (!line) return [];
  return [...line.matchAll(/ (?:edited|created|written|wrote|deleted|moved)[^#;]*#(\d+)/g)].map((m) =>
    Number(m[1]),
  );
}

const totals = { requests: 0, lastErrorKept: 0, lastErrorTotal: 0, claims: 0, fabricated: 0 };
const examples: string[] = [];
const seen = new Set<string>();
for (const file of (await readdir(values.formats)).filter((name) => name.endsWith(".jsonl")).sort()) {
  const name = basename(file, ".jsonl");
  const messages = (await readFile(join(values.formats, file), "utf8"))
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as ChatMessage);
  const truth = JSON.parse(
    await readFile(join(values.formats, "truth", `${name}.json`), "utf8"),
  ) as CallTruth[];
  const results = readResults(messages, truth);
  const firstFact = messages[0]?.role === "system" ? 1 : 0;
  const requestsDir = join(values.out, name, "requests");
  let requestFiles: string[];
  try {
    requestFiles = (await readdir(requestsDir)).sort();
  } catch {
    continue;
  }
  const perFile = { kept: 0, total: 0, fabricated: 0 };
  for (const requestFile of requestFiles) {
    const before = Number(requestFile.slice(0, 4));
    const body = JSON.parse(await readFile(join(requestsDir, requestFile), "utf8")) as {
      messages: ChatMessage[];
    };
    const request = body.messages
      .map((message) =>
        [contentText(message.content), ...(message.tool_calls ?? []).map((c) => c.function.arguments)].join(
          "\n",
        ),
      )
      .join("\n");
    if (!request.includes("[Working state")) continue;
    totals.requests++;
    const flatRequest = flat(request.replace(/\\n/g, "\n"));
    const last = results.filter((result) => result.index < before && result.failed).pop();
    if (last) {
      perFile.total++;
      if (kept(flatRequest, last)) perFile.kept++;
      else
        examples.push(
          `${name} before ${before}: missing ${JSON.stringify(last.lines[0] ?? last.command).slice(0, 140)}`,
        );
    }
    for (const claim of commandClaims(request)) {
      totals.claims++;
      if (!/^(?:0|ok|0 but failed)$/.test(claim.outcome) && claim.outcome !== "0") continue;
      if (claim.outcome === "0 but failed") continue;
      const result = results.find((entry) => entry.callIndex === claim.step + firstFact);
      if (result?.failed) {
        perFile.fabricated++;
        if (!seen.has(`${name}${claim.step}`)) {
          seen.add(`${name}${claim.step}`);
          examples.push(
            `${name} before ${before}: claims \`${claim.command.slice(0, 60)}\` ${claim.outcome} #${claim.step}, result: ${JSON.stringify(result.lines[0] ?? result.text.slice(0, 80))}`,
          );
        }
      }
    }
    for (const step of changedClaims(request)) {
      totals.claims++;
      const result = results.find((entry) => entry.callIndex === step + firstFact);
      if (result?.failed) {
        perFile.fabricated++;
        if (examples.length < 24)
          examples.push(
            `${name} before ${before}: lists a change at #${step} whose result failed: ${JSON.stringify(result.lines[0] ?? "")}`,
          );
      }
    }
  }
  totals.lastErrorKept += perFile.kept;
  totals.lastErrorTotal += perFile.total;
  totals.fabricated += perFile.fabricated;
  const share = perFile.total === 0 ? "n/a" : `${((100 * perFile.kept) / perFile.total).toFixed(1)} %`;
  process.stdout.write(
    `${name.padEnd(40)} last error ${share.padStart(8)} (${perFile.kept}/${perFile.total})  fabricated ${perFile.fabricated}\n`,
  );
}
const pooled =
  totals.lastErrorTotal === 0
    ? "n/a"
    : `${((100 * totals.lastErrorKept) / totals.lastErrorTotal).toFixed(1)} %`;
process.stdout.write(
  `pooled: ${totals.requests} requests after a compaction; last error ${pooled} (${totals.lastErrorKept}/${totals.lastErrorTotal}); ledger claims read ${totals.claims}, fabricated ${totals.fabricated}\n`,
);
for (const example of examples) process.stdout.write(`  ${example}\n`);
