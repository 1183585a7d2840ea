import { mkdir, readFile, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { parseArgs } from "node:util";
import type { ChatMessage } from "@longrun/protocol";
import { fromCline } from "./cline.ts";
import { fromOpenHands, type OpenHandsEvent } from "./openhands.ts";

/**
 * Turns public agent logs into `longrun replay` transcripts (one Chat Completions message a line),
 * with each call's recorded outcome beside them in `<out>/truth/` for checkers:
 *
 *   npx tsx test/bench/formats/convert-formats.ts --openhands output.jsonl --cline cline_task.md --out .scratch/formats
 *
 * OpenHands rows give two transcripts each: `-seen` (results as the model saw them, exit-code line
 * included) and `-text` (the output alone, no exit code). The data stays out of the repository.
 */
const { values } = parseArgs({
  options: {
    openhands: { type: "string", multiple: true, default: [] },
    cline: { type: "string", multiple: true, default: [] },
    out: { type: "string" },
  },
});
const out = values.out;
if (!out) throw new Error("missing --out DIR");
await mkdir(join(out, "truth"), { recursive: true });

async function write(name: string, messages: readonly ChatMessage[], truth: unknown): Promise<void> {
  await writeFile(
    join(out as string, `${name}.jsonl`),
    `${messages.map((m) => JSON.stringify(m)).join("\n")}\n`,
  );
  await writeFile(join(out as string, "truth", `${name}.json`), `${JSON.stringify(truth, null, 1)}\n`);
  process.stdout.write(`${name}: ${messages.length} messages\n`);
}

function slug(text: string): string {
  return text.replace(/[^A-Za-z0-9._-]+/g, "-").slice(0, 60);
}

for (const file of values.openhands ?? []) {
  const rows = (await readFile(file, "utf8")).split("\n").filter((line) => line.trim() !== "");
  for (const row of rows) {
    const parsed = JSON.parse(row) as { instance_id?: string; history?: OpenHandsEvent[] };
    if (!parsed.history) continue;
    const name = `oh-${slug(parsed.instance_id ?? basename(file))}`;
    const seen = fromOpenHands(parsed.history, "as-seen");
    await write(`${name}-seen`, seen.messages, seen.truth);
    const text = fromOpenHands(parsed.history, "text-only");
    await write(`${name}-text`, text.messages, text.truth);
  }
}
for (const file of values.cline ?? []) {
  // Cline records nothing beside the text: no exit codes to hand a checker.
  await write(`cline-${slug(basename(file, ".md"))}`, fromCline(await readFile(file, "utf8")), []);
}
