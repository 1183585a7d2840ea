import { appendFile, mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { ChatMessage } from "@longrun/protocol";
import { compactionStage } from "../tracing/compaction-span.ts";

/** Where an agent's compacted source messages accumulate (DESIGN §5 step 10). */
export function historyFilePath(workspaceDir: string, threadId: string, agentId: string): string {
  return join(workspaceDir, ".longrun", "history", threadId, `${agentId}.jsonl`);
}

/**
 * Appends compacted source messages (already sanitized: no provider state, I5) to the history file.
 * Returns the path, or the error; a failure must not block the summary.
 */
export function offloadHistory(
  file: string,
  messages: Array<ChatMessage & { id?: string; seq?: number }>,
  compactionKey: string,
): Promise<{ ok: true } | { ok: false; error: string }> {
  return compactionStage("offload", () => appendHistory(file, messages, compactionKey));
}

async function appendHistory(
  file: string,
  messages: Array<ChatMessage & { id?: string; seq?: number }>,
  compactionKey: string,
): Promise<{ ok: true } | { ok: false; error: string }> {
  try {
    await mkdir(dirname(file), { recursive: true });
    const lines = messages.map((message) => JSON.stringify({ compactionKey, ...message })).join("\n");
    if (lines.length > 0) await appendFile(file, `${lines}\n`, "utf8");
    return { ok: true };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}
