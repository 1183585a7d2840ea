import type { OpsView as OpsData } from "@longrun/protocol";
import { useCallback, useEffect, useState } from "react";
import { usePoll } from "../hooks/use-poll.ts";
import { formatAgo, formatDuration } from "../lib/format.ts";
import { useStore } from "../state/store-context.tsx";

const OPS_POLL_MS = 3000;
/** A worker not seen for this long is shown as gone. */
const WORKER_STALE_MS = 30_000;

/** Workers, queues, per-agent breakers and recent failures, refreshed every few seconds. */
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
      {ops && <OpsTables ops={ops} now={now} />}
    </main>
  );
}

function OpsTables({ ops, now }: { ops: OpsData; now: number }) {
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
                <td>{breaker.agentId}</td>
                <td>
                  {breaker.threadId ? (
                    <a href={`#/threads/${encodeURIComponent(breaker.threadId)}`}>{breaker.threadId}</a>
                  ) : (
                    "–"
                  )}
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
                  {failure.threadId ?? "–"} · {failure.agentId ?? "–"}
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
