import { resolveBoundary } from "./boundary.ts";
import { type ProjectionInput, project } from "./project.ts";
import { ReductionCache } from "./reductions.ts";
import type { ProjectionMemo } from "./stable.ts";

/**
 * The memo as it stands before the next call: every call point since the compaction in force (each
 * assistant fact after it was made) projected in turn, each handed the memo of the one before. It is
 * what a runtime that carried the memo from step to step holds, so a restarted worker, GET /context
 * and `longrun replay` send the same bytes. Null when no call point happened yet.
 */
export function rebuildMemo(input: Omit<ProjectionInput, "memo">): ProjectionMemo | null {
  const { messages, compaction } = input;
  const boundary = resolveBoundary(messages, compaction);
  const since = compaction?.createdAt ?? Number.NEGATIVE_INFINITY;
  let memo: ProjectionMemo | null = null;
  // Every call point sees the same facts again: their stage results are computed once for the fold.
  const reductions = input.reductions ?? new ReductionCache();
  for (let index = Math.max(1, boundary.startIndex); index < messages.length; index++) {
    const fact = messages[index];
    if (fact?.role !== "assistant" || fact.createdAt < since) continue;
    memo =
      project({ ...input, messages: messages.slice(0, index), now: fact.createdAt, memo, reductions }).memo ??
      null;
  }
  return memo;
}
