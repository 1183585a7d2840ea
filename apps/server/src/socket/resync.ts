import type { ResyncFrame } from "@longrun/protocol";
import type { z } from "zod";
import type { SocketDeps } from "./types.ts";

type Resync = z.infer<typeof ResyncFrame>;

/**
 * The stream starts after `resumeAfter` instead of where the client asked: `ahead`, a `since` above the
 * thread's head (it resumes at the head); `bounded`, a replay of every thread cut to its share of the
 * bound.
 */
export async function resumeAtResync(
  deps: SocketDeps,
  id: string,
  threadId: string,
  reason: "ahead" | "bounded",
  requested: number,
  resumeAfter: number,
): Promise<Resync> {
  const oldest = await deps.log.oldest(threadId);
  return {
    type: "resync",
    id,
    threadId,
    reason,
    requestedSince: requested,
    oldestSeq: oldest ?? resumeAfter + 1,
    resumeAfter,
  };
}

/** A cursor older than the retained log: the events between are gone, the stream goes on after them. */
export async function expiredResync(
  deps: SocketDeps,
  id: string,
  threadId: string,
  cursor: number,
): Promise<Resync | null> {
  const oldest = await deps.log.oldest(threadId);
  // Seqs start at 1 (the store's numbering); a cursor of -1 or 0 both mean "from the beginning".
  if (oldest === null || oldest <= Math.max(cursor, 0) + 1) return null;
  return {
    type: "resync",
    id,
    threadId,
    reason: "expired",
    requestedSince: cursor,
    oldestSeq: oldest,
    resumeAfter: oldest - 1,
  };
}
