import type {
  Agent,
  AgentState,
  ChatMessage,
  CompactionEvent,
  ModelProfile,
  StoredMessage,
  Thread,
} from "@longrun/protocol";
import { LongrunError } from "@longrun/protocol";
import type { RuntimeDeps } from "../runtime-deps.ts";
import { capClientToolResults } from "./client-tool-results.ts";
import { buildForkPrefix } from "./fork-prefix.ts";

/** What a step, a compaction or a context read needs to know about one agent, read in one place. */
export interface AgentContext {
  thread: Thread;
  agent: Agent;
  profile: ModelProfile;
  state: AgentState;
  compaction: CompactionEvent | null;
  /** The system prompt (the agent's first fact when it is a system message). */
  systemPrompt: string | null;
  /** A fork's inherited prefix, rebuilt from the parent's log by id. */
  prefix: ChatMessage[];
  /**
   * Facts from the compaction boundary on (all facts when never compacted), system message excluded;
   * in a gateway conversation, the client's tool results capped (capClientToolResults).
   */
  facts: StoredMessage[];
}

/** Loads an agent's context: O(retained messages), never the compacted prefix. */
export async function loadAgentContext(deps: RuntimeDeps, agentId: string): Promise<AgentContext> {
  const { store } = deps;
  const agent = await store.agents.get(agentId);
  if (!agent) throw new LongrunError("not_found", `agent ${agentId} not found`);
  const thread = await store.threads.get(agent.threadId);
  if (!thread) throw new LongrunError("not_found", `thread ${agent.threadId} not found`);
  const [state, compaction, first] = await Promise.all([
    store.agentState.get(agentId),
    store.compactions.latest(agentId),
    store.messages.list(agentId, { afterSeq: -1, limit: 1 }),
  ]);
  const systemMessage = first[0]?.role === "system" ? first[0] : null;
  const facts = compaction
    ? await store.messages.fromBoundary(agentId, {
        cutoffMessageId: compaction.cutoffMessageId,
        cutoffIndex: compaction.cutoffIndex,
      })
    : await store.messages.list(agentId, { afterSeq: -1 });
  const prefix = agent.inherit === "fork" ? await buildForkPrefix(deps, agent) : [];
  const retained = facts.filter((message) => message.id !== systemMessage?.id);
  return {
    thread,
    agent,
    profile: thread.modelProfile,
    state,
    compaction,
    systemPrompt: systemMessage && typeof systemMessage.content === "string" ? systemMessage.content : null,
    prefix,
    // A gateway client's tool results arrive uncapped (it runs its tools itself): cut like longrun's own.
    facts: thread.modelProfile.gateway ? capClientToolResults(retained, thread.modelProfile) : retained,
  };
}
