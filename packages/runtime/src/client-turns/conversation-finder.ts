import {
  agentConversationKey,
  type Checkpoint,
  type ClientCompaction,
  type ClientTurn,
  checkpointIn,
  derivedThreadId,
  firstUserText,
  type HeaderReader,
  sessionKey,
  splitAtCheckpoint,
} from "@longrun/openai-compat";
import type { Thread } from "@longrun/protocol";
import type { RuntimeDeps } from "../runtime-deps.ts";
import type { ClientTurnOptions } from "./client-turn-options.ts";

/** A gateway thread of this tenant, read from the store (an index or a marker only suggests the id). */
async function gatewayThread(
  deps: Pick<RuntimeDeps, "store">,
  tenantId: string,
  threadId: string | undefined,
): Promise<Thread | null> {
  if (!threadId) return null;
  const thread = await deps.store.threads.get(threadId);
  return thread && thread.tenantId === tenantId && thread.modelProfile.gateway ? thread : null;
}

/**
 * The thread a client without a session id continues after its own compaction: its rebuilt history
 * no longer starts with the first message its key was made of, but it holds longrun's checkpoint,
 * which names the thread. Clients with a session id keep their key and need none of this.
 */
export async function continuedThread(
  deps: Pick<RuntimeDeps, "store">,
  input: { tenantId: string; turn: ClientTurn; header: HeaderReader },
): Promise<Thread | null> {
  if (sessionKey(input.turn, input.header).source !== "content") return null;
  return gatewayThread(deps, input.tenantId, splitAtCheckpoint(input.turn.items)?.threadId);
}

/** Remembers a content-keyed conversation's first message, for its later compaction requests. */
export function rememberConversation(
  options: Pick<ClientTurnOptions, "conversationIndex">,
  input: { tenantId: string; turn: ClientTurn; header: HeaderReader },
  threadId: string,
): void {
  if (!options.conversationIndex) return;
  if (sessionKey(input.turn, input.header).source !== "content") return;
  options.conversationIndex.remember(input.tenantId, firstUserText(input.turn.items), threadId);
}

/**
 * The conversation a client's own compaction request is about, strongest signal first: longrun's
 * checkpoint in what it sends (a second compaction), the session's agent conversation (session id,
 * or the content key when the request keeps the first message and working directory), then — for a
 * client with no session id whose request is a transcript or has its own system prompt — the
 * conversation whose first user message it carries.
 */
export async function compactedThread(
  deps: Pick<RuntimeDeps, "store">,
  options: Pick<ClientTurnOptions, "conversationIndex">,
  input: { tenantId: string; turn: ClientTurn; header: HeaderReader },
  detected: ClientCompaction,
): Promise<{ threadId: string; thread: Thread | null }> {
  const { tenantId } = input;
  const checkpoint: Checkpoint | null =
    splitAtCheckpoint(detected.conversationItems) ??
    (detected.transcript ? checkpointIn(detected.transcript) : null);
  const marked = await gatewayThread(deps, tenantId, checkpoint?.threadId);
  if (marked) return { threadId: marked.id, thread: marked };
  const keyed = derivedThreadId(tenantId, agentConversationKey(input.turn, input.header).key);
  const thread = await gatewayThread(deps, tenantId, keyed);
  if (thread) return { threadId: keyed, thread };
  const index = options.conversationIndex;
  if (index && sessionKey(input.turn, input.header).source === "content") {
    const first = firstUserText(detected.conversationItems);
    const found =
      (first ? index.byFirstUser(tenantId, first) : undefined) ??
      (detected.transcript ? index.inTranscript(tenantId, detected.transcript) : undefined);
    const indexed = await gatewayThread(deps, tenantId, found);
    if (indexed) return { threadId: indexed.id, thread: indexed };
  }
  return { threadId: keyed, thread: null };
}
