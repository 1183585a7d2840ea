import { readFile } from "node:fs/promises";
import { ChatMessage, contentText } from "@longrun/protocol";

/** A transcript read from JSONL: the system prompt apart, every message with its position. */
export interface Transcript {
  /** Where it was read from (for messages). */
  source: string;
  /** Text of the leading system message, if the transcript has one. */
  systemPrompt: string | null;
  /** All messages in order, the leading system message included (indices are positions in this list). */
  messages: ChatMessage[];
  /** Index of the first message that is a fact (1 when messages[0] is the system prompt, else 0). */
  firstFactIndex: number;
}

/** A transcript that cannot be replayed; the message names the file and line. */
export class TranscriptError extends Error {
  override readonly name = "TranscriptError";
}

function describeIssues(error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] }) {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length > 0 ? `${issue.path.map(String).join(".")}: ` : ""}${issue.message}`)
    .join("; ");
}

/** Parses JSONL text (one Chat Completions message a line; blank lines ignored). */
export function parseTranscript(text: string, source: string): Transcript {
  const messages: ChatMessage[] = [];
  const lines = text.split("\n");
  lines.forEach((line, lineIndex) => {
    if (line.trim() === "") return;
    const where = `${source}:${lineIndex + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      throw new TranscriptError(`${where}: not valid JSON (${detail})`);
    }
    const parsed = ChatMessage.safeParse(value);
    if (!parsed.success) {
      throw new TranscriptError(`${where}: not a Chat Completions message (${describeIssues(parsed.error)})`);
    }
    messages.push(parsed.data);
  });
  if (messages.length === 0) throw new TranscriptError(`${source}: the transcript has no messages`);
  const first = messages[0] as ChatMessage;
  const hasSystem = first.role === "system";
  return {
    source,
    systemPrompt: hasSystem ? contentText(first.content) : null,
    messages,
    firstFactIndex: hasSystem ? 1 : 0,
  };
}

/** Reads and parses a transcript file; a missing or unreadable file is a TranscriptError. */
export async function readTranscript(path: string): Promise<Transcript> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new TranscriptError(`${path}: no such file`);
    if (code === "EISDIR") throw new TranscriptError(`${path}: is a directory, not a .jsonl transcript`);
    throw new TranscriptError(`${path}: cannot read (${error instanceof Error ? error.message : code})`);
  }
  return parseTranscript(text, path);
}

/** Positions of the model call points: every assistant message (the one the call produces). */
export function callPoints(transcript: Transcript): number[] {
  const points: number[] = [];
  transcript.messages.forEach((message, index) => {
    if (message.role === "assistant" && index >= transcript.firstFactIndex) points.push(index);
  });
  return points;
}
