import type { OpsView as OpsData } from "@longrun/protocol";
import { useCallback, useEffect, useRef, useState } from "react";
import type { LongrunApi } from "../api/api-types.ts";
import { usePoll } from "../hooks/use-poll.ts";
import { formatAgo, formatDuration } from "../lib/format.ts";
import { useStore } from "../state/store-context.tsx";

const OPS_POLL_MS = 3000;
/** A worker not seen for this long is shown as gone. */
const WORKER_STALE_MS = 30_000;

/** A thread's title and its agents' names, for rows that name them by id. */
interface ThreadNames {
  title: string;
  agents: Record<string, string>;
}

/** Workers, queues, per-agent breakers, stuck runs and recent failures, refreshed every few seconds. */
export function OpsView() {
  const { api } = useStore();
  const load = useCallback(() => api.ops.get(), [api]);
  const poll = usePoll(load, OPS_POLL_MS);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const ops = poll.value;
  const names = useThreadNames(api, [
    ...(ops?.breakers ?? []).map((breaker) => breaker.threadId),
    ...(ops?.stuckRuns ?? []).map((run) => run.threadId),
    ...(ops?.failures ?? []).map((failure) => failure.threadId),
  ]);
  return (
    <main className="ops-view" data-testid="ops-view">
      <div className="panel-head">
        <h1>Operations</h1>
        <span className="muted small" data-testid="ops-updated">
          {ops ? `${ops.mode} mode · updated ${formatAgo(poll.loadedAt, now)}` : "loading…"}
        </span>
      </div>
      {poll.error && (
        <p className="error" data-testid="ops-error">
          {poll.error}
        </p>
      )}
      {ops && <OpsTables ops={ops} names={names} now={now} />}
    </main>
  );
}

/**
 * Names for the threads the rows point to, each thread read once (its detail has the title and the
 * agents' names); a thread that cannot be read is asked again when the rows change.
 */
function useThreadNames(
  api: LongrunApi,
  threadIds: readonly (string | null)[],
): ReadonlyMap<string, ThreadNames> {
  const [names, setNames] = useState<ReadonlyMap<string, ThreadNames>>(new Map());
  const asked = useRef(new Set<string>());
  const wanted = [...new Set(threadIds.filter((id): id is string => id !== null))].sort().join(",");
  useEffect(() => {
    for (const threadId of wanted.split(",")) {
      if (!threadId || asked.current.has(threadId)) continue;
      asked.current.add(threadId);
      api.threads.get(threadId).then(
        (detail) => {
          const agents = Object.fromEntries(detail.agents.map((agent) => [agent.id, agent.name]));
          setNames((known) => new Map(known).set(threadId, { title: detail.title, agents }));
        },
        () => asked.current.delete(threadId),
      );
    }
  }, [api, wanted]);
  return names;
}

/** A thread by its title (its id on hover), linked to its view. */
function ThreadLink({
  threadId,
  names,
}: {
  threadId: string | null;
  names: ReadonlyMap<string, ThreadNames>;
}) {
  if (!threadId) return <>–</>;
  return (
    <a href={`#/threads/${encodeURIComponent(threadId)}`} title={threadId} data-testid="ops-thread-link">
      {names.get(threadId)?.title || threadId}
    </a>
  );
}

/** An agent by its name (its id on hover). */
function AgentName({
  threadId,
  agentId,
  names,
}: {
  threadId: string | null;
  agentId: string | null;
  names: ReadonlyMap<string, ThreadNames>;
}) {
  if (!agentId) return <>–</>;
  return (
    <span title={agentId} data-testid="ops-agent-name">
      {(threadId ? names.get(threadId)?.agents[agentId] : undefined) ?? agentId}
    </span>
  );
}

function OpsTables({
  ops,
  names,
  now,
}: {
  ops: OpsData;
  names: ReadonlyMap<string, ThreadNames>;
  now: number;
}) {
  return (
    <div className="ops-grid">
      <section className="panel">
        <h2>
          Workers ({ops.workers.filter((worker) => now - worker.lastSeenAt < WORKER_STALE_MS).length} alive)
        </h2>
        <table data-testid="ops-workers">
          <thead>
            <tr>
              <th>worker</th>
              <th>host · pid</th>
              <th>active jobs</th>
              <th>last seen</th>
            </tr>
          </thead>
          <tbody>
            {ops.workers.map((worker) => {
              const alive = now - worker.lastSeenAt < WORKER_STALE_MS;
              return (
                <tr key={worker.id} data-testid="ops-worker-row" data-alive={alive}>
                  <td>
                    <span
                      className={`dot ${alive ? "status-running" : "status-failed"}`}
                      aria-hidden="true"
                    />{" "}
                    {worker.id}
                  </td>
                  <td>
                    {worker.host} · {worker.pid}
                  </td>
                  <td>{worker.activeJobs}</td>
                  <td>{formatAgo(worker.lastSeenAt, now)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </section>
      <section className="panel">
        <h2>Queues</h2>
        <table data-testid="ops-queues">
          <thead>
            <tr>
              <th>queue</th>
              <th>waiting</th>
              <th>active</th>
              <th>delayed</th>
              <th>failed</th>
              <th>oldest wait</th>
            </tr>
          </thead>
          <tbody>
            {ops.queues.map((queue) => (
              <tr key={queue.name} data-testid="ops-queue-row" data-queue={queue.name}>
                <td>{queue.name}</td>
                <td>{queue.waiting}</td>
                <td>{queue.active}</td>
                <td>{queue.delayed}</td>
                <td>{queue.failed}</td>
                <td>{formatDuration(queue.oldestWaitMs)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section className="panel">
        <h2>Compaction breakers</h2>
        <table data-testid="ops-breakers">
          <thead>
            <tr>
              <th>agent</th>
              <th>thread</th>
              <th>state</th>
              <th>failures</th>
              <th>cooldown left</th>
            </tr>
          </thead>
          <tbody>
            {ops.breakers.map((breaker) => (
              <tr key={breaker.agentId} data-testid="ops-breaker-row" data-state={breaker.state}>
                <td>
                  <AgentName threadId={breaker.threadId} agentId={breaker.agentId} names={names} />
                </td>
                <td>
                  <ThreadLink threadId={breaker.threadId} names={names} />
                </td>
                <td>
                  <span className={`badge breaker-${breaker.state}`}>{breaker.state.replace("_", "-")}</span>
                </td>
                <td>{breaker.failures}</td>
                <td>
                  {breaker.state === "open" && breaker.openUntil
                    ? formatDuration(Math.max(0, breaker.openUntil - now))
                    : "–"}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {ops.breakers.length === 0 && <p className="muted small">No breaker has tripped.</p>}
      </section>
      <section className="panel">
        <h2>Stuck runs ({ops.stuckRuns.length})</h2>
        <table data-testid="ops-stuck">
          <thead>
            <tr>
              <th>thread</th>
              <th>agent</th>
              <th>started</th>
              <th>why nothing moves it</th>
            </tr>
          </thead>
          <tbody>
            {ops.stuckRuns.map((run) => (
              <tr key={run.runId} data-testid="ops-stuck-row" data-run={run.runId}>
                <td>
                  <ThreadLink threadId={run.threadId} names={names} />
                </td>
                <td>
                  <AgentName threadId={run.threadId} agentId={run.agentId} names={names} />
                </td>
                <td>{run.startedAt === null ? "–" : formatAgo(run.startedAt, now)}</td>
                <td>{run.reason}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {ops.stuckRuns.length === 0 && <p className="muted small">No run is stuck.</p>}
      </section>
      <section className="panel">
        <h2>Recent failures</h2>
        <table data-testid="ops-failures">
          <thead>
            <tr>
              <th>when</th>
              <th>kind</th>
              <th>thread · agent</th>
              <th>message</th>
            </tr>
          </thead>
          <tbody>
            {ops.failures.map((failure, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: failures have no id; the list is replaced on each poll
              <tr key={`${failure.at}-${index}`} data-testid="ops-failure-row">
                <td>{formatAgo(failure.at, now)}</td>
                <td>{failure.kind}</td>
                <td>
                  <ThreadLink threadId={failure.threadId} names={names} /> ·{" "}
                  <AgentName threadId={failure.threadId} agentId={failure.agentId} names={names} />
                </td>
                <td>{failure.message}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {ops.failures.length === 0 && <p className="muted small">No failures.</p>}
      </section>
    </div>
  );
}
