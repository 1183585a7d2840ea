import type { StoredMessage } from "@longrun/protocol";
import { useEffect, useState } from "react";
import type { LongrunApi } from "../api/api-types.ts";
import { clip, errorText, textOf } from "../lib/format.ts";
import { useStore } from "../state/store-context.tsx";

/** Inherited messages listed in full; older ones are counted and left in the source thread. */
const SHOWN_INHERITED = 12;
const MESSAGE_PAGE = 1000;

interface Origin {
  sourceThreadId: string;
  sourceTitle: string;
  /** What the fork continues from: a message, or a compaction (with it in force). */
  point: { kind: "message"; seq: number | null } | { kind: "compaction"; id: string };
  /** The source's messages the fork carries (by reference), oldest first. */
  inherited: StoredMessage[];
}

interface Lineage {
  origin: Origin | null;
  /** A rewind pointed this thread to a fork: messages sent here go there. */
  rewoundTo: { threadId: string; title: string } | null;
}

/** Reads where a forked thread comes from and what it carries; null for a thread that is not a fork. */
async function readLineage(api: LongrunApi, threadId: string): Promise<Lineage> {
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
  if (!detail.forkedFromThreadId || !root?.forkSourceAgentId) return { origin: null, rewoundTo };
  const source = await api.threads.get(detail.forkedFromThreadId);
  let until: (message: StoredMessage) => boolean;
  let point: Origin["point"];
  if (root.forkCompactionId) {
    const compactionId = root.forkCompactionId;
    const compaction = (await api.agents.compactions(root.forkSourceAgentId)).find(
      (candidate) => candidate.id === compactionId,
    );
    // The fork anchors at the last message appended before the compaction was recorded.
    const recordedAt = compaction?.createdAt ?? Number.POSITIVE_INFINITY;
    until = (message) => message.createdAt > recordedAt;
    point = { kind: "compaction", id: compactionId };
  } else {
    const messageId = root.forkMessageId;
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
    const page = await api.agents.messages(root.forkSourceAgentId, { afterSeq, limit: MESSAGE_PAGE });
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
  return {
    origin: { sourceThreadId: source.id, sourceTitle: source.title, point, inherited },
    rewoundTo,
  };
}

/**
 * Above a forked thread's transcript: the thread and point it was forked from (a link back) and the
 * messages it inherited from there, the newest of them listed; on a rewound thread, where its next
 * messages go.
 */
export function ForkOrigin({ threadId }: { threadId: string }) {
  const { api } = useStore();
  const [lineage, setLineage] = useState<Lineage | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let closed = false;
    setLineage(null);
    setError(null);
    readLineage(api, threadId).then(
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
  }, [api, threadId]);
  if (error) return <p className="error small">Cannot read where this thread was forked from: {error}</p>;
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
      {origin && <Inherited origin={origin} />}
    </>
  );
}

function Inherited({ origin }: { origin: Origin }) {
  const shown = origin.inherited.slice(-SHOWN_INHERITED);
  const older = origin.inherited.length - shown.length;
  const where =
    origin.point.kind === "message"
      ? `after message #${origin.point.seq ?? "?"}`
      : "at a compaction (its summary is in force here)";
  return (
    <section
      className="panel fork-origin"
      data-testid="fork-origin"
      data-source-thread-id={origin.sourceThreadId}
      data-inherited={origin.inherited.length}
      aria-label="What this fork inherited"
    >
      <p className="small">
        Forked from{" "}
        <a href={`#/threads/${encodeURIComponent(origin.sourceThreadId)}`} data-testid="fork-source-link">
          {origin.sourceTitle}
        </a>{" "}
        {where}. It carries {origin.inherited.length} message{origin.inherited.length === 1 ? "" : "s"} from
        there, by reference; its own messages follow below.
      </p>
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
