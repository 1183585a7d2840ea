import type { StoredMessage, ThreadDetail } from "@longrun/protocol";
import { useEffect, useState } from "react";
import type { LongrunApi } from "../api/api-types.ts";
import { clip, errorText, textOf } from "../lib/format.ts";
import { useStore } from "../state/store-context.tsx";

/** Inherited messages listed in full; older ones are counted and left in the source thread. */
const SHOWN_INHERITED = 12;
const MESSAGE_PAGE = 1000;

type Agent = ThreadDetail["agents"][number];

interface Origin {
  /**
   * What it was forked from: another thread (a fork or rewind of it), or, for a sub-agent spawned with
   * `inherit: "fork"`, its parent agent in this thread.
   */
  source:
    | { kind: "thread"; threadId: string; title: string }
    | { kind: "agent"; agentId: string; name: string };
  /** What the fork continues from: a message, or a compaction (with it in force). */
  point: { kind: "message"; seq: number | null } | { kind: "compaction"; id: string };
  /** A sub-agent forked after its parent compacted: that summary stands for the older messages. */
  summarized: boolean;
  /** The source's messages the fork carries (by reference), oldest first. */
  inherited: StoredMessage[];
}

interface Lineage {
  origin: Origin | null;
  /** A rewind pointed this thread to a fork: messages sent here go there. */
  rewoundTo: { threadId: string; title: string } | null;
}

/**
 * Reads where the agent shown comes from and what it carries: the root of a forked thread from its
 * source thread, a forked sub-agent from its parent; null for an agent that starts from its brief.
 */
async function readLineage(api: LongrunApi, threadId: string, agentId: string | null): Promise<Lineage> {
  const detail = await api.threads.get(threadId);
  const rewoundTo = detail.rewoundToThreadId
    ? {
        threadId: detail.rewoundToThreadId,
        title: await api.threads.get(detail.rewoundToThreadId).then(
          (target) => target.title,
          // The fork may be gone or unreadable: its id still says where messages go.
          () => detail.rewoundToThreadId ?? "",
        ),
      }
    : null;
  const root = detail.agents.find((agent) => agent.parentAgentId === null);
  const agent = detail.agents.find((candidate) => candidate.id === agentId) ?? root;
  if (!agent) return { origin: null, rewoundTo };
  if (agent.parentAgentId === null) {
    if (!detail.forkedFromThreadId || !agent.forkSourceAgentId) return { origin: null, rewoundTo };
    const source = await api.threads.get(detail.forkedFromThreadId);
    const carried = await inheritedFrom(api, agent.forkSourceAgentId, agent);
    return {
      origin: { source: { kind: "thread", threadId: source.id, title: source.title }, ...carried },
      rewoundTo,
    };
  }
  const parent = detail.agents.find((candidate) => candidate.id === agent.parentAgentId);
  if (agent.inherit !== "fork" || !parent) return { origin: null, rewoundTo };
  // A sub-agent forks at its parent's latest message, with the parent's compaction then in force.
  const carried = await inheritedFrom(api, agent.forkSourceAgentId ?? parent.id, {
    ...agent,
    forkCompactionId: null,
  });
  return {
    origin: {
      source: { kind: "agent", agentId: parent.id, name: parent.name },
      ...carried,
      summarized: agent.forkCompactionId !== null,
    },
    rewoundTo,
  };
}

/** The source agent's messages a fork carries: up to its fork message, or those before its compaction. */
async function inheritedFrom(
  api: LongrunApi,
  sourceAgentId: string,
  fork: Pick<Agent, "forkMessageId" | "forkCompactionId">,
): Promise<Omit<Origin, "source">> {
  let until: (message: StoredMessage) => boolean;
  let point: Origin["point"];
  if (fork.forkCompactionId) {
    const compactionId = fork.forkCompactionId;
    const compaction = (await api.agents.compactions(sourceAgentId)).find(
      (candidate) => candidate.id === compactionId,
    );
    // The fork anchors at the last message appended before the compaction was recorded.
    const recordedAt = compaction?.createdAt ?? Number.POSITIVE_INFINITY;
    until = (message) => message.createdAt > recordedAt;
    point = { kind: "compaction", id: compactionId };
  } else {
    const messageId = fork.forkMessageId;
    let found = false;
    until = (message) => {
      if (found) return true;
      found = message.id === messageId;
      return false;
    };
    point = { kind: "message", seq: null };
  }
  const inherited: StoredMessage[] = [];
  let afterSeq = -1;
  for (let done = false; !done; ) {
    const page = await api.agents.messages(sourceAgentId, { afterSeq, limit: MESSAGE_PAGE });
    for (const message of page.messages) {
      if (until(message)) {
        done = true;
        break;
      }
      inherited.push(message);
    }
    if (page.nextAfterSeq === null || page.messages.length === 0) break;
    afterSeq = page.nextAfterSeq;
  }
  if (point.kind === "message") point.seq = inherited.at(-1)?.seq ?? null;
  return { point, inherited, summarized: false };
}

/**
 * Above the transcript of a forked agent: where it was forked from (a link back to the source thread,
 * or to the parent agent of a forked sub-agent) and the messages it inherited from there, the newest of
 * them listed; on a rewound thread, where its next messages go.
 */
export function ForkOrigin({
  threadId,
  agentId,
  onSelectAgent,
}: {
  threadId: string;
  /** The agent whose transcript is shown (null: the thread's root). */
  agentId: string | null;
  onSelectAgent: (agentId: string) => void;
}) {
  const { api } = useStore();
  const [lineage, setLineage] = useState<Lineage | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let closed = false;
    setLineage(null);
    setError(null);
    readLineage(api, threadId, agentId).then(
      (read) => {
        if (!closed) setLineage(read);
      },
      (caught) => {
        if (!closed) setError(errorText(caught));
      },
    );
    return () => {
      closed = true;
    };
  }, [api, threadId, agentId]);
  if (error) return <p className="error small">Cannot read where this agent was forked from: {error}</p>;
  if (!lineage) return null;
  const { origin, rewoundTo } = lineage;
  return (
    <>
      {rewoundTo && (
        <p className="banner" data-testid="rewound-to">
          This thread was rewound: messages sent here continue in{" "}
          <a href={`#/threads/${encodeURIComponent(rewoundTo.threadId)}`} data-testid="rewound-to-link">
            {rewoundTo.title}
          </a>
          . Nothing here was deleted.
        </p>
      )}
      {origin && <Inherited origin={origin} onSelectAgent={onSelectAgent} />}
    </>
  );
}

function Inherited({ origin, onSelectAgent }: { origin: Origin; onSelectAgent: (agentId: string) => void }) {
  const shown = origin.inherited.slice(-SHOWN_INHERITED);
  const older = origin.inherited.length - shown.length;
  const where =
    origin.point.kind === "message"
      ? `after message #${origin.point.seq ?? "?"}`
      : "at a compaction (its summary is in force here)";
  const count = `${origin.inherited.length} message${origin.inherited.length === 1 ? "" : "s"}`;
  const { source } = origin;
  return (
    <section
      className="panel fork-origin"
      data-testid="fork-origin"
      data-source-thread-id={source.kind === "thread" ? source.threadId : undefined}
      data-source-agent-id={source.kind === "agent" ? source.agentId : undefined}
      data-inherited={origin.inherited.length}
      aria-label="What this fork inherited"
    >
      {source.kind === "thread" ? (
        <p className="small">
          Forked from{" "}
          <a href={`#/threads/${encodeURIComponent(source.threadId)}`} data-testid="fork-source-link">
            {source.title}
          </a>{" "}
          {where}. It carries {count} from there, by reference; its own messages follow below.
        </p>
      ) : (
        <p className="small">
          Forked from{" "}
          <button
            type="button"
            className="link small"
            data-testid="fork-source-agent"
            onClick={() => onSelectAgent(source.agentId)}
          >
            {source.name}
          </button>
          's context {where}: it starts from {count} of {source.name}'s log, by reference
          {origin.summarized ? " (the older ones as the summary then in force)" : ""}, then its brief below.
        </p>
      )}
      <details open className="small">
        <summary>
          Inherited messages
          {older > 0 ? ` (the last ${shown.length}; ${older} older ones are in the source)` : ""}
        </summary>
        <ol className="inherited-list">
          {shown.map((message) => (
            <li
              key={message.id}
              data-testid="inherited-message"
              data-message-id={message.id}
              data-seq={message.seq}
            >
              <span className="role">{message.role}</span> <span className="muted">#{message.seq}</span>{" "}
              {clip(inheritedLine(message), 160).text}
            </li>
          ))}
        </ol>
      </details>
    </section>
  );
}

function inheritedLine(message: StoredMessage): string {
  const text = textOf(message.content).replace(/\s+/g, " ").trim();
  const calls = (message.toolCalls ?? []).map((call) => `${call.function.name}(…)`).join(" ");
  return [text, calls].filter(Boolean).join(" ");
}
