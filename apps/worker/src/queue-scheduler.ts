import type { JobQueue } from "@longrun/queue";
import type { CompactJob, Scheduler, StepJob } from "@longrun/runtime";
import type { Store } from "@longrun/store";

/**
 * The runtime's Scheduler on top of a JobQueue. Each step job carries the log position it expects
 * (`expectSeq`), so a duplicate that arrives after the agent moved on is recognized as stale; explicit
 * job ids are used only where a duplicate must be dropped at enqueue (resume, approval).
 */
export function createQueueScheduler(queue: JobQueue, store: Store): Scheduler {
  return {
    async step(job: StepJob, options = {}) {
      const expectSeq = options.expectSeq ?? (await store.messages.last(job.agentId))?.seq ?? -1;
      await queue.enqueue(
        "agent.step",
        { ...job, expectSeq },
        {
          ...(options.jobId ? { jobId: options.jobId } : {}),
          ...(options.delayMs ? { delayMs: options.delayMs } : {}),
        },
      );
    },
    async compact(job: CompactJob) {
      await queue.enqueue("agent.compact", job);
    },
    async cancelRun(runId) {
      // Running jobs are aborted through the control channel; queued ones go now, so a delayed step
      // (a breaker wait) does not linger after the run ended.
      return queue.removeWhere((job) => (job.payload as { runId?: unknown }).runId === runId);
    },
    available: () => queue.available(),
    async liveAgents() {
      const live = await queue.listLive();
      return new Set(
        live
          .map((job) => (job.payload as { agentId?: unknown }).agentId)
          .filter((agentId): agentId is string => typeof agentId === "string"),
      );
    },
  };
}
