import type {
  Answer,
  AnswerEvent,
  ClientTurn,
  HeaderReader,
  PromptCacheFigures,
} from "@longrun/openai-compat";
import { LongrunError, PROFILE_LIMITS, type StoredMessage } from "@longrun/protocol";
import { DEFAULT_LEASE_MS } from "@longrun/queue";
import { resolveProfile } from "../profiles.ts";
import type { RuntimeDeps } from "../runtime-deps.ts";
import {
  CLIENT_WINDOW_HEADER,
  type ClientTurnOptions,
  COMPACTION_HEADER,
  MAX_INPUT_TOKENS_HEADER,
} from "./client-turn-options.ts";

/** Where a turn's answer goes as it streams. */
export interface TurnSink {
  /** The answer starts (the upstream accepted the request, or a stored answer is told again). */
  begin(info: { threadId: string; replayed: boolean }): void;
  event(event: AnswerEvent): void;
}

export interface ClientTurnInput {
  tenantId: string;
  turn: ClientTurn;
  header: HeaderReader;
  signal: AbortSignal;
  /** "codex", "opencode"…: shown with the thread. */
  client?: string;
}

export interface ClientTurnResult {
  threadId: string;
  agentId: string;
  answer: Answer;
  replayed: boolean;
  /** Prompt tokens of the upstream request read from and written to the cache (when a ledger is kept). */
  promptCache?: PromptCacheFigures;
  /** What the emulated clear_thinking edit left out of the upstream request (when asked for). */
  clearedReasoning?: { turns: number; tokens: number };
}

/**
 * The window a request names in `x-longrun-max-input-tokens`: a whole number of tokens within the
 * profile limits, or none. Anything else (`-1`, `1e12`, `8k`) is refused, not silently ignored.
 */
function windowOf(header: string | undefined): number | undefined {
  if (header === undefined || header.trim() === "") return undefined;
  const { min, max } = PROFILE_LIMITS.maxInputTokens;
  const value = /^\s*\d{1,9}\s*$/.test(header) ? Number(header) : Number.NaN;
  if (!(value >= min && value <= max))
    throw new LongrunError(
      "bad_request",
      `${MAX_INPUT_TOKENS_HEADER}: expected a whole number of tokens from ${min} to ${max}, got "${header.slice(0, 40)}"`,
    );
  return value;
}

/** The settings a request carries for its conversation (a malformed window header is a bad request). */
export function settingsOf(options: ClientTurnOptions, input: ClientTurnInput) {
  const maxInputTokens = windowOf(input.header(MAX_INPUT_TOKENS_HEADER)) ?? options.defaultMaxInputTokens;
  const compaction = input.header(COMPACTION_HEADER)?.trim().toLowerCase();
  const clientWindowHeader = Number.parseInt(input.header(CLIENT_WINDOW_HEADER) ?? "", 10);
  const profile = resolveProfile({
    model: input.turn.model,
    ...(maxInputTokens ? { maxInputTokens } : {}),
    ...(input.turn.maxOutputTokens ? { maxOutputTokens: input.turn.maxOutputTokens } : {}),
    ...(options.upstreamApi ? { upstreamApi: options.upstreamApi } : {}),
  });
  const setting: "on" | "off" | undefined =
    compaction === "off" || compaction === "on" ? compaction : undefined;
  return {
    profile,
    compaction: setting,
    ...(clientWindowHeader > 0 ? { clientWindow: clientWindowHeader } : {}),
  };
}

/** The settings of one request (see settingsOf). */
export type TurnSettings = ReturnType<typeof settingsOf>;

export function leaseOptions(options: ClientTurnOptions, signal: AbortSignal) {
  return { leaseMs: options.leaseMs ?? DEFAULT_LEASE_MS, waitMs: options.leaseWaitMs ?? 60_000, signal };
}

/** The conversation's facts, the system prompt fact left out (the client sends its own each time). */
export async function factsOf(deps: RuntimeDeps, agentId: string): Promise<StoredMessage[]> {
  const all = await deps.store.messages.list(agentId, { afterSeq: -1 });
  return all[0]?.role === "system" ? all.slice(1) : all;
}
