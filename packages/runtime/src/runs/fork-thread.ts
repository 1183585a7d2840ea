import { type CompactionEvent, LongrunError, type StoredMessage, type Thread } from "@longrun/protocol";
import type { RuntimeDeps } from "../runtime-deps.ts";
import { type MaterializedWorkspace, materializeWorkspace } from "../snapshots/materialize.ts";

/** Where a fork starts: after one message of the source's root agent, or where a compaction was made. */
export type ForkPoint = { atMessageId: string } | { atCompactionId: string };

export interface ForkThreadInput {
  sourceThreadId: string;
  point: ForkPoint;
  title?: string;
  /** A rewind: the source thread points to the fork afterwards (messages posted to it go there). */
  rewind?: boolean;
  /** The fork's id (its workspace folder may be named after it). */
  id?: string;
  /**
   * The fork's own workspace: a new, empty folder, filled with the source's workspace as it was at the
   * point (materializeWorkspace). Unset, or for a gateway thread (its tools run on the client): the
   * fork shares the source's folder.
   */
  workspaceDir?: string;
}

export interface ForkedThread {
  thread: Thread;
  rootAgentId: string;
  forkMessageId: string;
  forkCompactionId: string | null;
  /** What the fork's workspace was rebuilt from; null when it shares the source's folder. */
  workspace: MaterializedWorkspace | null;
}

/**
 * Forks a thread at a point of its root agent's log. The fork's root agent references the source's
 * facts by id (`forkSourceAgentId`, `forkMessageId`, `forkCompactionId`) and rebuilds them as its
 * prefix like a forked sub-agent does (buildForkPrefix): nothing is copied, the source is not written
 * (except, for a rewind, its pointer to the fork). What the prefix rebuild implies: a tool call at the
 * point without its result is answered `cancelled` (repairToolPairs), never run again; the source's
 * undecided approvals, plan/TODO state and sub-agents stay in the source.
 */
export async function forkThread(deps: RuntimeDeps, input: ForkThreadInput): Promise<ForkedThread> {
  const { store } = deps;
  const source = await store.threads.get(input.sourceThreadId);
  if (!source) throw new LongrunError("not_found", `thread ${input.sourceThreadId} not found`);
  const root = (await store.agents.listByThread(source.id)).find((agent) => !agent.parentAgentId);
  if (!root) throw new LongrunError("conflict", `thread ${source.id} has no root agent`);
  const { message, compaction } = await resolveForkPoint(deps, root.id, input.point);
  const ownWorkspace = input.workspaceDir !== undefined && !source.modelProfile.gateway;
  let workspace: MaterializedWorkspace | null = null;
  if (ownWorkspace && input.workspaceDir) {
    workspace = await materializeWorkspace(store, {
      sourceThreadId: source.id,
      tenantId: source.tenantId,
      sourceDir: source.workspaceDir,
      rootAgentId: root.id,
      point: message,
      targetDir: input.workspaceDir,
    });
    if (workspace.unrestorable.length > 0) {
      deps.log.warn(
        { sourceThreadId: source.id, paths: workspace.unrestorable.slice(0, 20) },
        "fork workspace: some files could not be put back as of the fork point",
      );
    }
  }
  const thread = await store.threads.create({
    ...(input.id ? { id: input.id } : {}),
    tenantId: source.tenantId,
    title: input.title ?? `${source.title} (fork)`,
    workspaceDir: ownWorkspace && input.workspaceDir ? input.workspaceDir : source.workspaceDir,
    modelProfile: source.modelProfile,
    forkedFromThreadId: source.id,
  });
  const forkRoot = await store.agents.create({
    threadId: thread.id,
    parentAgentId: null,
    name: "root",
    inherit: "fork",
    forkSourceAgentId: root.id,
    forkMessageId: message.id,
    forkCompactionId: compaction?.id ?? null,
  });
  await deps.events.emit({
    threadId: thread.id,
    agentId: forkRoot.id,
    type: "thread.created",
    data: { title: thread.title, workspaceDir: thread.workspaceDir, model: thread.modelProfile.model },
  });
  if (input.rewind) await store.threads.update(source.id, { rewoundToThreadId: thread.id });
  return {
    thread,
    rootAgentId: forkRoot.id,
    forkMessageId: message.id,
    forkCompactionId: compaction?.id ?? null,
    workspace,
  };
}

/**
 * The fork's anchor message and the compaction in force for the model call that followed it: the
 * newest compaction recorded before the next message was appended (any newest one when the anchor is
 * the last message). A compaction point anchors at the last message appended before it was recorded.
 */
async function resolveForkPoint(
  deps: RuntimeDeps,
  agentId: string,
  point: ForkPoint,
): Promise<{ message: StoredMessage; compaction: CompactionEvent | null }> {
  const { store } = deps;
  // A fork is rare and explicit: reading the root's whole log once (ids, seqs, times) is acceptable.
  const facts = await store.messages.list(agentId, { afterSeq: -1 });
  const compactions = await store.compactions.list(agentId);
  if ("atCompactionId" in point) {
    const compaction = compactions.find((candidate) => candidate.id === point.atCompactionId);
    if (!compaction) {
      throw new LongrunError(
        "bad_request",
        `compaction ${point.atCompactionId} is not a compaction of this thread's root agent`,
      );
    }
    const before = facts.filter((message) => recordedBefore(message, compaction));
    const message = before.at(-1);
    if (!message) throw new LongrunError("bad_request", `compaction ${compaction.id} precedes every message`);
    return { message, compaction };
  }
  const index = facts.findIndex((message) => message.id === point.atMessageId);
  const message = facts[index];
  if (!message) {
    throw new LongrunError(
      "bad_request",
      `message ${point.atMessageId} is not a message of this thread's root agent`,
    );
  }
  const next = facts[index + 1];
  const inForce = compactions.filter((candidate) => !next || recordedBefore(candidate, next));
  return { message, compaction: inForce.at(-1) ?? null };
}

/** Creation order across messages and compactions: by time, then by time-sortable id. */
function recordedBefore(first: { createdAt: number; id: string }, second: { createdAt: number; id: string }) {
  return first.createdAt < second.createdAt || (first.createdAt === second.createdAt && first.id < second.id);
}
