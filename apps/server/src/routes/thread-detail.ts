import { LongrunError, type ThreadDetail } from "@longrun/protocol";
import type { ServerDeps } from "../server-deps.ts";

/** A thread with its agent tree and runs. */
export async function threadDetail(deps: ServerDeps, threadId: string): Promise<ThreadDetail> {
  const thread = await deps.store.threads.get(threadId);
  if (!thread) throw new LongrunError("not_found", `thread ${threadId} not found`);
  const [agents, runs] = await Promise.all([
    deps.store.agents.listByThread(threadId),
    deps.store.runs.listByThread(threadId),
  ]);
  return { ...thread, agents, runs };
}
