import type { Thread } from "@longrun/protocol";
import type { CreateThreadInput as StoredThreadInput } from "@longrun/store";
import { DEFAULT_SYSTEM_PROMPT } from "../context/system-prompt.ts";
import { withTokenCount } from "../events/append-fact.ts";
import type { RuntimeDeps } from "../runtime-deps.ts";

/** A new thread as the store takes it (always created idle), plus its root agent's system prompt. */
export type ThreadWithRootInput = Omit<StoredThreadInput, "status"> & { systemPrompt?: string };

/** Creates a thread with its root agent and system prompt, and announces it. */
export async function createThreadWithRoot(
  deps: RuntimeDeps,
  input: ThreadWithRootInput,
): Promise<{ thread: Thread; rootAgentId: string }> {
  const { store } = deps;
  const thread = await store.threads.create({
    ...(input.id ? { id: input.id } : {}),
    tenantId: input.tenantId,
    title: input.title,
    workspaceDir: input.workspaceDir,
    modelProfile: input.modelProfile,
  });
  const root = await store.agents.create({
    threadId: thread.id,
    parentAgentId: null,
    name: "root",
    inherit: "fresh",
    forkMessageId: null,
    forkCompactionId: null,
    brief: null,
    spawnCallId: null,
  });
  // A gateway client's system text can be very large: counted before the write (large ones off-thread).
  await store.messages.append(
    root.id,
    await withTokenCount(deps, { role: "system", content: input.systemPrompt ?? DEFAULT_SYSTEM_PROMPT }),
  );
  await deps.events.emit({
    threadId: thread.id,
    agentId: root.id,
    type: "thread.created",
    data: { title: thread.title, workspaceDir: thread.workspaceDir, model: thread.modelProfile.model },
  });
  return { thread, rootAgentId: root.id };
}
