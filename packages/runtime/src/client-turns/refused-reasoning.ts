import type { ChatMessage, ModelProfile, StoredMessage } from "@longrun/protocol";
import type { RuntimeDeps } from "../runtime-deps.ts";
import { withoutRefusedReasoning } from "../upstream/stale-reasoning.ts";

/** A turn's upstream messages with the facts they were built from (null: not from a fact). */
export interface SourcedMessages {
  messages: ChatMessage[];
  sourceIds: (string | null)[];
  facts: readonly StoredMessage[];
}

/**
 * The messages without the reasoning state the upstream already refused for this conversation (kept
 * on its thread as `gateway.reasoningRefusedThrough`): without it every later turn met the same refusal
 * and sent its request twice, until a compaction.
 */
export function withoutRefused(sourced: SourcedMessages, profile: ModelProfile): ChatMessage[] {
  return withoutRefusedReasoning(sourced, sourced.facts, profile.gateway?.reasoningRefusedThrough);
}

/**
 * Records that the upstream refused the reasoning state of every fact up to the newest one, with the
 * `reasoning.dropped` event longrun's agents emit; returns the profile that says so.
 */
export async function rememberRefusal(
  deps: RuntimeDeps,
  where: { threadId: string; agentId: string; runId: string },
  profile: ModelProfile,
  refusal: { facts: readonly StoredMessage[]; error: unknown; messages: number },
): Promise<ModelProfile> {
  const through = refusal.facts.at(-1)?.seq;
  let next = profile;
  if (profile.gateway && through !== undefined) {
    next = { ...profile, gateway: { ...profile.gateway, reasoningRefusedThrough: through } };
    await deps.store.threads.update(where.threadId, { modelProfile: next });
  }
  await deps.events.emit({
    ...where,
    type: "reasoning.dropped",
    data: {
      reason: refusal.error instanceof Error ? refusal.error.message : String(refusal.error),
      messages: refusal.messages,
    },
  });
  return next;
}
