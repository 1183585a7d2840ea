export { type AgentContext, loadAgentContext } from "./agent-context.ts";
export { runAgentStep, type StepOutcome } from "./agent-step.ts";
export { type CompactionOutcome, runCompaction } from "./compaction-runner.ts";
export { Coordinator } from "./coordinator.ts";
export { type CreateThreadInput, createThreadWithRoot } from "./create-thread.ts";
export type { EventSink } from "./event-sink.ts";
export { buildForkPrefix } from "./fork-prefix.ts";
export { historyFilePath } from "./history-file.ts";
export {
  createJobRunner,
  type JobAttempt,
  type JobRunner,
  type JobRunnerOptions,
  type StepPayload,
} from "./job-runner.ts";
export { callModel, callSummarizer } from "./model-call.ts";
export { createPersistingEventSink, EVENTS_CHANNEL, type PublishedEvent } from "./persisting-event-sink.ts";
export { projectContext, restoredFilesOf } from "./projection.ts";
export {
  createReconciler,
  type MaintenanceOptions,
  type ReconcileReport,
  type Reconciler,
  type ReconcilerOptions,
  startMaintenance,
} from "./reconciler.ts";
export { RunControl } from "./run-control.ts";
export type { AgentLease, CompactJob, RuntimeDeps, Scheduler, StepJob } from "./runtime-deps.ts";
export { DEFAULT_SYSTEM_PROMPT } from "./system-prompt.ts";
