import { derivedThreadId } from "@longrun/openai-compat";
import type { GatewayProfile, ModelProfile, Thread } from "@longrun/protocol";
import { createThreadWithRoot } from "../runs/create-thread.ts";
import type { RuntimeDeps } from "../runtime-deps.ts";
import type { ClientTurnOptions } from "./client-turn-options.ts";

/** A gateway conversation: its thread and the root agent whose log holds the client's history. */
export interface GatewayConversation {
  thread: Thread;
  agentId: string;
  created: boolean;
}

async function rootAgentOf(deps: Pick<RuntimeDeps, "store">, threadId: string): Promise<string | null> {
  const agents = await deps.store.agents.listByThread(threadId);
  return agents.find((agent) => !agent.parentAgentId)?.id ?? null;
}

/**
 * The thread of a conversation key, created on first use with a deterministic id (so every server
 * instance finds the same one without a lookup table). Two first requests racing: one creates, the
 * other reads what it created.
 */
export async function resolveConversation(
  deps: RuntimeDeps,
  options: Pick<ClientTurnOptions, "workspaceFor">,
  input: {
    tenantId: string;
    key: string;
    title: string;
    systemPrompt: string;
    profile: ModelProfile;
    gateway: GatewayProfile;
  },
): Promise<GatewayConversation> {
  const threadId = derivedThreadId(input.tenantId, input.key);
  const existing = await deps.store.threads.get(threadId);
  if (existing) return { thread: existing, agentId: await waitForRoot(deps, threadId), created: false };
  try {
    const { thread, rootAgentId } = await createThreadWithRoot(deps, {
      id: threadId,
      tenantId: input.tenantId,
      title: input.title,
      workspaceDir: await options.workspaceFor(threadId),
      modelProfile: { ...input.profile, gateway: input.gateway },
      systemPrompt: input.systemPrompt,
    });
    return { thread, agentId: rootAgentId, created: true };
  } catch (error) {
    const raced = await deps.store.threads.get(threadId);
    if (!raced) throw error;
    return { thread: raced, agentId: await waitForRoot(deps, threadId), created: false };
  }
}

/** The creator of a thread adds its root agent right after the thread: a racing reader waits briefly. */
async function waitForRoot(deps: Pick<RuntimeDeps, "store">, threadId: string): Promise<string> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const agentId = await rootAgentOf(deps, threadId);
    if (agentId) return agentId;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`thread ${threadId} has no root agent`);
}
