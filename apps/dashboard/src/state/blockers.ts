import type { ApprovalRequest, ThreadState } from "./thread-state.ts";

/** What one agent of the thread waits for, as the header says it with its action. */
export type Blocker =
  | { kind: "approval"; agentId: string; agentName: string; request: ApprovalRequest }
  | { kind: "breaker" | "retry"; agentId: string; agentName: string; reason: string; until: number | null }
  | { kind: "children"; agentId: string; agentName: string; children: string[] };

/**
 * Everything the thread's agents wait for now: a person's decision (each pending call), a compaction
 * breaker's cooldown, a provider retry, sub-agents. From the agents' statuses and the pending approvals
 * the server announced; the time comes from the agent.status event (or, read over REST, its reason).
 */
export function blockers(thread: Pick<ThreadState, "agents" | "approvals" | "breakers">): Blocker[] {
  const found: Blocker[] = [];
  const approvals = Object.values(thread.approvals).sort(
    (left, right) => left.requestedAt - right.requestedAt,
  );
  for (const request of approvals) {
    const agent = request.agentId ? thread.agents[request.agentId] : undefined;
    // A call left undecided by a cancelled run waits for nobody: only an agent parked on it counts.
    if (agent === undefined || agent.status !== "waiting_approval") continue;
    found.push({ kind: "approval", agentId: agent.id, agentName: agent.name, request });
  }
  for (const agent of Object.values(thread.agents)) {
    if (agent.status === "waiting") {
      const reason = agent.statusReason ?? "held back";
      const breaker = /breaker/i.test(reason) || thread.breakers[agent.id]?.state === "open";
      found.push({
        kind: breaker ? "breaker" : "retry",
        agentId: agent.id,
        agentName: agent.name,
        reason,
        until: agent.statusUntil ?? untilIn(reason) ?? thread.breakers[agent.id]?.openUntil ?? null,
      });
    } else if (agent.status === "waiting_children") {
      const children = Object.values(thread.agents)
        .filter((child) => child.parentAgentId === agent.id && !DONE.has(child.status))
        .map((child) => child.name);
      found.push({ kind: "children", agentId: agent.id, agentName: agent.name, children });
    }
  }
  return found;
}

const DONE = new Set(["completed", "failed", "cancelled", "context_exhausted"]);

/** "…: waiting until 2026-12-06T07:31:02.000Z" (the server's wording) → epoch ms. */
function untilIn(reason: string): number | null {
  const match = reason.match(/until (\d{4}-\d\d-\d\dT[\d:.]+Z)/);
  if (!match?.[1]) return null;
  const at = Date.parse(match[1]);
  return Number.isNaN(at) ? null : at;
}

/** "0:14", "2:05", "1:02:03": time left, never below zero. */
export function formatCountdown(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, "0");
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, "0")}:${seconds}` : `${minutes}:${seconds}`;
}

/** The word for the header badge: what the thread is doing, waits included. */
/** A status known only as of the moment the live connection was lost, said as such. */
export function asOfConnectionLoss(status: string): string {
  return `${status} when the connection was lost`;
}

export function headStatus(status: string, found: readonly Blocker[]): string {
  if (found.some((blocker) => blocker.kind === "approval")) return "waiting for you";
  if (found.some((blocker) => blocker.kind === "breaker")) return "waiting: breaker open";
  if (found.some((blocker) => blocker.kind === "retry")) return "waiting: retrying";
  if (found.some((blocker) => blocker.kind === "children")) return "waiting for sub-agents";
  return status.replaceAll("_", " ");
}
