import { type Command, LongrunError } from "@longrun/protocol";
import { requireAgent, requireThread } from "../auth.ts";
import { checkMessageSize } from "../message-size.ts";
import type { ServerDeps } from "../server-deps.ts";
import type { SocketAdapterDeps } from "./ws-adapter.ts";

/** Binds the WebSocket server to the store, the live fan-out and the run controls; every command is tenant-scoped. */
export function createSocketDeps(deps: ServerDeps): SocketAdapterDeps {
  const { store } = deps;
  return {
    authenticate: async (token: string) => {
      const key = await store.apiKeys.verify(token);
      return key ? { tenantId: key.tenantId, keyId: key.keyId } : null;
    },
    liveKeys: (ids) => store.apiKeys.active(ids),
    log: {
      after: (threadId, afterSeq, limit) => store.events.after(threadId, afterSeq, limit),
      oldest: (threadId) => store.events.oldest(threadId),
      head: (threadId) => store.events.head(threadId),
    },
    threads: {
      canAccess: async (tenantId, threadId) => (await store.threads.get(threadId))?.tenantId === tenantId,
      listIds: async (tenantId) => (await store.threads.list(tenantId)).map((thread) => thread.id),
    },
    live: { subscribe: (handler) => deps.live.subscribe(handler) },
    commands: {
      execute: async (tenantId: string, command: Command) => {
        switch (command.kind) {
          case "send_message": {
            await requireThread(store, tenantId, command.threadId);
            checkMessageSize(deps, command.content, "content");
            const admitted = await deps.runControl.admitMessage({
              threadId: command.threadId,
              content: command.content,
              agentId: command.agentId,
            });
            deps.metrics.runtime.runAdmitted(
              command.content.trim() === "/compact" ? "compact" : "message",
              tenantId,
            );
            return admitted;
          }
          case "approve": {
            await requireAgent(store, tenantId, command.agentId);
            await deps.runControl.resolveApproval({
              agentId: command.agentId,
              callId: command.callId,
              decision: command.decision,
              reason: command.reason,
            });
            return { ok: true };
          }
          case "compact": {
            await requireAgent(store, tenantId, command.agentId);
            const run = await deps.runControl.admitCompaction(command.agentId);
            deps.metrics.runtime.runAdmitted("compact", tenantId);
            return { runId: run.id };
          }
          case "cancel": {
            const run = await store.runs.get(command.runId);
            const thread = run ? await store.threads.get(run.threadId) : null;
            // Named by the run asked for, never by another tenant's thread.
            if (!run || thread?.tenantId !== tenantId)
              throw new LongrunError("not_found", `run ${command.runId} not found`);
            const cancelled = await deps.runControl.cancel(command.runId);
            await deps.publishCancel(command.runId);
            return { run: cancelled };
          }
          default: {
            const exhaustive: never = command;
            throw new Error(`unknown command ${JSON.stringify(exhaustive)}`);
          }
        }
      },
    },
    now: () => Date.now(),
  };
}
