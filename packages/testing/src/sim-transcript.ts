import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ChatMessage } from "@longrun/protocol";
import {
  executeFakeTool,
  fakeWorkspace,
  SIM_SCRIPTS,
  type SimScript,
  simModelName,
  toolDefinitions,
} from "@longrun/sim-model";

/** What `simTranscript` plays. */
export interface SimTranscriptOptions {
  /** The sim model's OpenAI-compatible base URL (`…/v1`). */
  baseURL: string;
  script?: SimScript;
  /** Tool-calling turns before the final answer: the transcript has `steps + 1` assistant messages. */
  steps: number;
  /** Emit reasoning state on every assistant message (as some providers do). */
  reasoning?: boolean;
  task?: string;
  /** Source files in the in-memory workspace the tools run against (default 24). */
  files?: number;
}

const SYSTEM_PROMPT = "You are a coding agent working in a repository. Use the tools to explore and edit it.";

/** Keeps the Chat Completions fields of an answer (drops refusal, annotations …). */
function asChatMessage(message: Record<string, unknown>): ChatMessage {
  const kept: Record<string, unknown> = { role: message.role, content: message.content ?? null };
  for (const field of ["tool_calls", "reasoning_details", "reasoning_content"] as const) {
    if (message[field] !== undefined && message[field] !== null) kept[field] = message[field];
  }
  return kept as unknown as ChatMessage;
}

/**
 * A real agent transcript made offline: one of the sim model's scripted agents works to its final
 * answer, each tool call executed against an in-memory workspace, the whole history resent every
 * turn like a client without compaction. The default test suite uses these where the opt-in suite
 * uses real transcripts (LONGRUN_CORPUS_DIR); same script, steps and files give the same transcript.
 */
export async function simTranscript(options: SimTranscriptOptions): Promise<ChatMessage[]> {
  const files = fakeWorkspace(options.files);
  const tools = toolDefinitions();
  const model = simModelName({
    script: options.script ?? "explorer",
    steps: options.steps,
    reasoning: options.reasoning ?? false,
    ctx: 10_000_000,
  });
  const messages: ChatMessage[] = [
    { role: "system", content: SYSTEM_PROMPT },
    { role: "user", content: options.task ?? "Explore the repository, keep notes, and report what it does." },
  ];
  for (let turn = 0; turn <= options.steps + 1; turn += 1) {
    const response = await fetch(`${options.baseURL}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer sim" },
      body: JSON.stringify({ model, messages, tools }),
    });
    const body = (await response.json()) as { choices?: Array<{ message: Record<string, unknown> }> };
    const answer = body.choices?.[0]?.message;
    if (!response.ok || !answer) throw new Error(`sim model refused turn ${turn}: ${JSON.stringify(body)}`);
    const message = asChatMessage(answer);
    messages.push(message);
    if (!message.tool_calls?.length) return messages;
    for (const call of message.tool_calls) {
      const content = executeFakeTool(files, call.function.name, call.function.arguments);
      messages.push({ role: "tool", tool_call_id: call.id, content });
    }
  }
  throw new Error(
    `the ${options.script ?? "explorer"} script did not finish within ${options.steps + 1} turns`,
  );
}

/** Writes messages as a transcript file: one JSON message a line, like the corpus. */
export async function writeTranscript(file: string, messages: readonly ChatMessage[]): Promise<string> {
  await writeFile(file, `${messages.map((message) => JSON.stringify(message)).join("\n")}\n`);
  return file;
}

/**
 * The scripted agents that play longrun's own tools. `coder` plays the tool vocabularies of real
 * clients (Codex CLI, opencode) through the gateway; its sessions come from those clients' tests.
 */
export const TRANSCRIPT_SCRIPTS = SIM_SCRIPTS.filter((script) => script !== "coder");

/** One transcript per scripted agent (`sim-<script>.jsonl`) in `dir`; returns their paths. */
export async function writeSimTranscripts(
  dir: string,
  options: Omit<SimTranscriptOptions, "script">,
): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const paths: string[] = [];
  for (const script of TRANSCRIPT_SCRIPTS) {
    const messages = await simTranscript({ ...options, script });
    paths.push(await writeTranscript(join(dir, `sim-${script}.jsonl`), messages));
  }
  return paths;
}
