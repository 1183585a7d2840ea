import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTokenizer, estimateStoredTokens } from "@longrun/compaction";
import type { LongrunEvent, ModelProfileInput } from "@longrun/protocol";
import { type Logger, ModelProfile, silentLogger } from "@longrun/protocol";
import {
  type CompactJob,
  createInProcessQueue,
  createMemoryBus,
  createMemoryLease,
  createScheduler,
  type JobContext,
  type JobName,
  type JobPayload,
  type JobQueue,
  jobCatalog,
  type PolicyOverrides,
  type SchedulingQueue,
} from "@longrun/queue";
import { type SimModelServer, simModelName } from "@longrun/sim-model";
import { openStore, type Store } from "@longrun/store";
import { createTempWorkspace, startTestSimModel } from "@longrun/testing";
import OpenAI from "openai";
import { type BreakerStore, createBreaker, createMemoryBreakerStore } from "./breaker/index.ts";
import { createPersistingEventSink } from "./events/persisting-event-sink.ts";
import { createJobHandlers } from "./jobs/job-handlers.ts";
import { Coordinator } from "./runs/coordinator.ts";
import { createThreadWithRoot } from "./runs/create-thread.ts";
import { RunControl } from "./runs/run-control.ts";
import type { RuntimeDeps } from "./runtime-deps.ts";
import { createToolRegistry } from "./tools/index.ts";

export interface HarnessOptions {
  maxInputTokens?: number;
  simSteps?: number;
  script?: "explorer" | "team" | "approval" | "writer";
  reasoning?: boolean;
  /** Sim-model server config overrides (faults, delays). */
  sim?: Record<string, unknown>;
  breakerStore?: BreakerStore;
  breaker?: { threshold?: number; baseCooldownMs?: number; maxCooldownMs?: number; now?: () => number };
  headers?: Record<string, string>;
  approvalRequired?: string[];
  now?: () => number;
  /** Jobs wait in `pending` until the test runs them with runNext() (no queue workers). */
  manual?: boolean;
  /** Another model endpoint than the sim (an endpoint that misbehaves); the sim still starts. */
  modelBaseURL?: string;
  /** Retry policy and timeouts of the in-process queue's jobs. */
  policy?: PolicyOverrides;
  /** Where the runtime logs (tests that read the lines pass a capturing logger). */
  log?: Logger;
}

export type PendingJob =
  | { name: "agent.step"; payload: JobPayload<"agent.step"> }
  | { name: "agent.compact"; payload: CompactJob }
  | { name: "agent.prepare-summary"; payload: JobPayload<"agent.prepare-summary"> };

/** A job context as a queue hands it over (attempt 1 of the catalog's attempts unless given). */
export function jobContext(
  name: JobName,
  context: Partial<JobContext> & { attempt?: number } = {},
): JobContext {
  const attempt = context.attempt ?? 1;
  const maxAttempts = context.maxAttempts ?? jobCatalog[name].retry.attempts;
  return {
    jobId: context.jobId ?? `manual-${name}`,
    name,
    attempt,
    maxAttempts,
    finalAttempt: attempt >= maxAttempts,
    redelivered: context.redelivered ?? false,
    signal: context.signal ?? new AbortController().signal,
  };
}

/** The runtime's job handlers called directly, as a worker's queue calls them. */
export function jobRunner(handlers: ReturnType<typeof createJobHandlers>) {
  const step = handlers["agent.step"];
  const compact = handlers["agent.compact"];
  const prepare = handlers["agent.prepare-summary"];
  if (!step || !compact || !prepare) throw new Error("the runtime has a handler for every job");
  return {
    step: (payload: JobPayload<"agent.step">, context: Partial<JobContext> = {}) =>
      step(payload, jobContext("agent.step", context)),
    compact: (payload: CompactJob, context: Partial<JobContext> = {}) =>
      compact(payload, jobContext("agent.compact", context)),
    prepare: (payload: JobPayload<"agent.prepare-summary">, context: Partial<JobContext> = {}) =>
      prepare(payload, jobContext("agent.prepare-summary", context)),
  };
}

/**
 * A runtime wired like embedded mode for tests: real libSQL file, real sim model over HTTP through the
 * openai client, the real in-process job queue. Only the model is a double, and it is strict.
 */
export async function createHarness(options: HarnessOptions = {}) {
  const tokenizer = createTokenizer("o200k_base");
  const dbDir = await mkdtemp(join(tmpdir(), "longrun-rt-"));
  const store: Store = await openStore({
    url: `file:${join(dbDir, "test.db")}`,
    countTokens: (message) => estimateStoredTokens(message, tokenizer),
  });
  const sim = await startTestSimModel(options.sim ?? {});
  const workspace = await createTempWorkspace();
  const queue: JobQueue = createInProcessQueue(options.policy ? { policy: options.policy } : {});
  const bus = createMemoryBus();
  const events: LongrunEvent[] = [];
  const listeners = new Set<(event: LongrunEvent) => void>();
  const sink = createPersistingEventSink(store, bus, (event) => {
    events.push(event);
    for (const listener of listeners) listener(event);
  });
  const pending: PendingJob[] = [];
  // Manual mode: jobs wait in `pending` until the test runs them (no queue workers).
  const manualQueue: SchedulingQueue = {
    async enqueue(name, payload) {
      pending.push({ name, payload } as PendingJob);
      return { id: `manual-${pending.length}`, deduplicated: false };
    },
    async removeWhere(match) {
      const before = pending.length;
      pending.splice(0, pending.length, ...pending.filter((job) => !match(job)));
      return before - pending.length;
    },
    async listLive() {
      return pending.map((job, index) => ({ id: `manual-${index}`, ...job, state: "waiting" as const }));
    },
    available: () => true,
  };
  const scheduler = createScheduler(options.manual ? manualQueue : queue, {
    lastSeq: async (agentId) => (await store.messages.last(agentId))?.seq ?? -1,
    // As the processes wire it (cli compose): jobs carry their thread's tenant.
    tenantOf: async (threadId) => (await store.threads.get(threadId))?.tenantId,
  });
  const extraHeaders = { ...options.headers };
  const deps: RuntimeDeps = {
    store,
    model: new OpenAI({ baseURL: options.modelBaseURL ?? sim.baseURL, apiKey: "sim", maxRetries: 0 }),
    tools: createToolRegistry({
      ...(options.approvalRequired ? { approvalRequired: new Set(options.approvalRequired) } : {}),
    }),
    breaker: createBreaker({ store: options.breakerStore ?? createMemoryBreakerStore(), ...options.breaker }),
    events: sink,
    scheduler,
    lease: createMemoryLease(),
    tokenizer,
    log: options.log ?? silentLogger,
    now: options.now ?? (() => Date.now()),
    timeZone: "Europe/Berlin",
    modelHeaders: () => extraHeaders,
    retry: { maxAttempts: 3, baseMs: 5, maxMs: 20 },
  };
  const coordinator = new Coordinator(deps);
  const runControl = new RunControl(deps, coordinator);
  const handlers = createJobHandlers({ deps, coordinator, runControl });
  const runner = jobRunner(handlers);
  if (!options.manual) await queue.process(handlers, { concurrency: { agent: 4, compaction: 2 } });

  const profileInput: ModelProfileInput = {
    model: simModelName({
      steps: options.simSteps ?? 10,
      ...(options.script ? { script: options.script } : {}),
      ...(options.reasoning ? { reasoning: true } : {}),
      ...(options.maxInputTokens ? { ctx: options.maxInputTokens } : {}),
    }),
    ...(options.maxInputTokens ? { maxInputTokens: options.maxInputTokens } : {}),
  };

  /** Resolves with the first event that matches, including ones already seen. */
  function waitForEvent(match: (event: LongrunEvent) => boolean, timeoutMs = 60_000): Promise<LongrunEvent> {
    const seen = events.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        listeners.delete(listener);
        reject(
          new Error(`timed out waiting for an event (${events.length} seen, last ${events.at(-1)?.type})`),
        );
      }, timeoutMs);
      const listener = (event: LongrunEvent) => {
        if (!match(event)) return;
        clearTimeout(timer);
        listeners.delete(listener);
        resolve(event);
      };
      listeners.add(listener);
    });
  }

  return {
    deps,
    store,
    sim: sim.server as SimModelServer,
    /** The sim's own endpoint (`…/v1`), also when the runtime talks to another one. */
    simBaseURL: sim.baseURL,
    queue,
    coordinator,
    runControl,
    workspace: workspace.dir,
    events,
    headers: extraHeaders,
    waitForEvent,
    pending,
    runner,
    /** Manual mode: runs the oldest pending job (attempt 1 unless given). */
    async runNext(attempt = 1, signal: AbortSignal = new AbortController().signal) {
      const job = pending.shift();
      if (!job) return null;
      const context = { attempt, signal, jobId: `manual-${job.payload.runId}` };
      const result =
        job.name === "agent.step"
          ? await runner.step(job.payload, context)
          : job.name === "agent.compact"
            ? await runner.compact(job.payload, context)
            : await runner.prepare(job.payload, context);
      return { job, result };
    },
    /** Creates a thread (root agent + system prompt) and posts its task. */
    async startThread(task: string, profile: Partial<ModelProfileInput> = {}) {
      const { thread, rootAgentId } = await createThreadWithRoot(deps, {
        tenantId: "test",
        title: task.slice(0, 40),
        workspaceDir: workspace.dir,
        modelProfile: ModelProfile.parse({ ...profileInput, ...profile }),
      });
      const admitted = await runControl.admitMessage({ threadId: thread.id, content: task });
      return { threadId: thread.id, rootAgentId, runId: admitted.runId };
    },
    /** Resolves when the run completes or fails. */
    waitForRunEnd(runId: string, timeoutMs = 120_000) {
      return waitForEvent(
        (event) =>
          event.runId === runId && ["run.completed", "run.failed", "run.cancelled"].includes(event.type),
        timeoutMs,
      );
    },
    async close() {
      await queue.close({ graceMs: 1_000 });
      await bus.close();
      await store.close();
      await sim.close();
      await workspace.cleanup();
      await rm(dbDir, { recursive: true, force: true });
    },
  };
}

export type Harness = Awaited<ReturnType<typeof createHarness>>;
