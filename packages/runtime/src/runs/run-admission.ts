import { LongrunError, type Run } from "@longrun/protocol";
import type { RunRecord } from "@longrun/store";
import { appendFactIn, withTokenCount } from "../events/append-fact.ts";
import { commit } from "../events/commit.ts";
import { withinRunQuota } from "../fair-share/run-quota.ts";
import type { RuntimeDeps } from "../runtime-deps.ts";
import { idAttributes, inSpan } from "../tracing/spans.ts";
import { agentStatusIn, threadStatusIn } from "./run-status.ts";

/**
 * A run's admission as a span — a child of the request that asked for it, the parent of its first
 * job — named by the run it admitted (`runOf` reads it from what `admit` returns).
 */
export function admissionSpan<T>(
  ids: { threadId?: string; agentId?: string },
  admit: () => Promise<T>,
  runOf: (admitted: T) => string,
): Promise<T> {
  return inSpan("longrun.run.admit", { attributes: idAttributes(ids) }, async (span) => {
    const admitted = await admit();
    span.setAttribute("longrun.run.id", runOf(admitted));
    return admitted;
  });
}

/**
 * Creates a run; when another is active in the thread it waits behind it (position > 0). The tenant's
 * fair share is checked first: a run past its running or queued limit is refused (429 too_many_runs).
 */
export async function admitRun(
  deps: RuntimeDeps,
  input: { threadId: string; agentId: string; kind: Run["kind"]; input: string | null },
): Promise<{ run: RunRecord; position: number }> {
  if (!deps.scheduler.available()) {
    throw new LongrunError(
      "unavailable",
      "the job queue is unreachable; nothing was started, try again shortly",
    );
  }
  const { run, active } = await withinRunQuota(deps, input.threadId, async (check) => {
    const active = await deps.store.runs.active(input.threadId);
    await check(active.length);
    return { run: await deps.store.runs.create({ ...input, status: "queued" }), active };
  });
  if (active.length === 0) return { run, position: 0 };
  await deps.events.emit({
    threadId: input.threadId,
    agentId: input.agentId,
    runId: run.id,
    type: "run.queued",
    data: { kind: input.kind, position: active.length },
  });
  return { run, position: active.length };
}

/**
 * Records a run's start in one transaction — run, thread and agent status, the user message and their
 * events — and returns the message's id (null for runs without one, or a run that was not queued).
 */
export async function recordRunStart(deps: RuntimeDeps, run: Run): Promise<string | null> {
  const where = { threadId: run.threadId, agentId: run.agentId, runId: run.id };
  const input =
    run.kind === "message" ? await withTokenCount(deps, { role: "user", content: run.input ?? "" }) : null;
  return commit(deps, async (unit, announce) => {
    const current = await unit.updateRun(run.id, {});
    if (current.status !== "queued") return null;
    await unit.updateRun(run.id, { status: "running", startedAt: deps.now() });
    await threadStatusIn(unit, announce, run.threadId, "running");
    announce({ ...where, type: "run.started", data: { kind: run.kind } });
    if (run.kind === "compact") {
      await agentStatusIn(unit, announce, where, "compacting");
      return null;
    }
    if (run.kind === "spawn") return null;
    const message = await appendFactIn(unit, announce, where, input ?? { role: "user", content: "" });
    await agentStatusIn(unit, announce, where, "queued");
    return message.id;
  });
}
