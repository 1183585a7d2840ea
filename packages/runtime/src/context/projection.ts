import {
  DEFAULT_RESTORATION_BUDGETS,
  type Projection,
  type ProjectionInput,
  type ProjectionMemo,
  project,
  type ReductionCache,
  type RestorationBudgets,
  type RestoredFile,
  rebuildMemo,
} from "@longrun/compaction";
import type { CompactionEvent, EventData, ModelProfile } from "@longrun/protocol";
import type { RuntimeDeps } from "../runtime-deps.ts";
import { toolsFor } from "../step/agent-tools.ts";
import type { AgentContext } from "./agent-context.ts";

/**
 * What a `context.measured` event says about the projection itself: its sizes, the stages' savings
 * and (cache-stable projections) why sent messages were rewritten, the reductions due, and on a
 * rewrite what it saved and resent. The step, the window and whether compaction comes are the caller's.
 */
export function measuredFigures(
  projection: Projection,
): Pick<
  EventData<"context.measured">,
  "rawTokens" | "projectedTokens" | "triggerTokens" | "saved" | "cache"
> {
  const { rewrite } = projection;
  return {
    rawTokens: projection.rawTokens,
    projectedTokens: projection.tokens,
    triggerTokens: projection.triggerTokens,
    saved: projection.saved,
    ...(rewrite
      ? {
          cache: {
            rewrite: rewrite.cause,
            dueTokens: rewrite.dueTokens,
            ...(rewrite.rewritten
              ? { savedTokens: rewrite.savedTokens, resentTokens: rewrite.resentTokens }
              : {}),
          },
        }
      : {}),
  };
}

/**
 * Files restored by a compaction, as they were read at compaction time (persisted with the event),
 * so every rebuild of the projection is the same.
 */
export function restoredFilesOf(compaction: CompactionEvent | null): RestoredFile[] {
  if (!compaction) return [];
  return compaction.restored
    .filter((item) => item.kind === "file" && item.path !== undefined && item.content !== undefined)
    .map((item) => ({
      path: item.path ?? "",
      content: item.content ?? "",
      readAt: compaction.createdAt,
      // Since the ledger, the event holds the text as fitted at compaction time (older: whole files).
      ...(item.fitted ? { fitted: true } : {}),
      ...(item.version === undefined ? {} : { version: item.version }),
    }));
}

/**
 * Restoration budgets scaled to the window: at most 10 % of it for files, so a compaction in a small
 * window is not undone by the files it restores.
 */
export function restorationBudgetsFor(
  profile: Partial<Pick<ModelProfile, "maxInputTokens">>,
): RestorationBudgets {
  if (!profile.maxInputTokens) return DEFAULT_RESTORATION_BUDGETS;
  const totalTokens = Math.min(
    DEFAULT_RESTORATION_BUDGETS.totalTokens,
    Math.floor(profile.maxInputTokens * 0.1),
  );
  return {
    maxFiles: DEFAULT_RESTORATION_BUDGETS.maxFiles,
    totalTokens,
    perFileTokens: Math.min(DEFAULT_RESTORATION_BUDGETS.perFileTokens, Math.floor(totalTokens / 2)),
  };
}

/**
 * The projection the model gets next for this agent (also served by GET /v1/agents/:id/context).
 * Cache-stable: `memo` is what this agent's previous call sent (a worker keeps it in the session);
 * without it the memo is folded from the facts, which gives the same bytes.
 */
export function projectContext(
  deps: RuntimeDeps,
  context: AgentContext,
  memo?: ProjectionMemo | null,
  reductions?: ReductionCache,
): Projection {
  const input: Omit<ProjectionInput, "memo"> = {
    systemPrompt: context.systemPrompt,
    prefix: context.prefix,
    messages: context.facts,
    compaction: context.compaction,
    state: { plan: context.state.plan, todos: context.state.todos },
    restoredFiles: restoredFilesOf(context.compaction),
    profile: context.profile,
    now: deps.now(),
    tokenizer: deps.tokenizer,
    tools: toolsFor(deps, context.agent),
    restorationBudgets: restorationBudgetsFor(context.profile),
    ...(reductions ? { reductions } : {}),
  };
  return project({ ...input, memo: memo === undefined ? rebuildMemo(input) : memo });
}
