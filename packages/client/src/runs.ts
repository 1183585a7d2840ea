import type { LongrunEvent, Run } from "@longrun/protocol";
import type { SubscribeFilter, SubscriptionHandle, SubscriptionHandlers } from "./client-subscription.ts";
import { AbortError, TimeoutError } from "./errors.ts";
import { EventStream, type StreamOptions } from "./event-stream.ts";
import type { RequestOptions } from "./http.ts";
import type { RestApi } from "./rest-api.ts";

const ENDED = new Set<Run["status"]>(["completed", "failed", "cancelled"]);
const ENDING_EVENTS = new Set(["run.completed", "run.failed", "run.cancelled"]);

/** Options of `runs.stream`: every event of the run, replayed from the thread's start unless `since` says. */
export type RunStreamOptions = Omit<StreamOptions, "agentId" | "types">;

export interface WaitOptions {
  signal?: AbortSignal;
  /** Milliseconds to wait for the run to end before a TimeoutError. Default: no limit. */
  timeout?: number;
}

/** `runs.*`: REST reads and cancel, plus waiting and streaming over the thread's events. */
export interface RunsApi {
  get(runId: string, options?: RequestOptions): Promise<Run>;
  /** Cancels a run from any server instance; a finished run is returned as it is. */
  cancel(runId: string, options?: RequestOptions): Promise<Run>;
  /** Resolves with the run once it has ended (completed, failed or cancelled), whatever its outcome. */
  wait(runId: string, options?: WaitOptions): Promise<Run>;
  /** The events carrying the run's id, ending after its `run.completed|failed|cancelled`. */
  stream(runId: string, options?: RunStreamOptions): Promise<EventStream>;
}

/** Opens a subscription with the given handlers (the client's shared socket). */
export type Subscriber = (filter: SubscribeFilter) => (handlers: SubscriptionHandlers) => SubscriptionHandle;

/** `runs.*` over the REST methods and the client's socket. */
export function createRunsApi(rest: RestApi, subscriber: Subscriber): RunsApi {
  return {
    get: (runId, options) => rest.runs.get(runId, options),
    cancel: (runId, options) => rest.runs.cancel(runId, options),
    stream: async (runId, options = {}) => {
      const run = await rest.runs.get(runId, options.signal ? { signal: options.signal } : {});
      return new EventStream(
        subscriber({ threadId: run.threadId, since: options.since ?? 0 }),
        run.threadId,
        options,
        (event: LongrunEvent) =>
          event.runId === runId ? { value: event, done: ENDING_EVENTS.has(event.type) } : {},
      );
    },
    wait: (runId, options = {}) => waitForRun(rest, subscriber, runId, options),
  };
}

async function waitForRun(rest: RestApi, subscriber: Subscriber, runId: string, options: WaitOptions) {
  const deadline = options.timeout === undefined ? undefined : AbortSignal.timeout(options.timeout);
  const signals = [options.signal, deadline].filter((signal) => signal !== undefined);
  const signal = signals.length > 0 ? AbortSignal.any(signals) : undefined;
  const requestOptions = signal ? { signal } : {};
  let ends: EventStream | undefined;
  try {
    const first = await rest.runs.get(runId, requestOptions);
    if (ENDED.has(first.status)) return first;
    // Live from here, then read the run again: an end between the two reads is not lost.
    ends = new EventStream(
      subscriber({ threadId: first.threadId, types: ["run.*"] }),
      first.threadId,
      requestOptions,
      (event: LongrunEvent) =>
        event.runId === runId && ENDING_EVENTS.has(event.type) ? { value: event, done: true } : {},
    );
    await ends.ready;
    const current = await rest.runs.get(runId, requestOptions);
    if (ENDED.has(current.status)) return current;
    for await (const _ of ends) break;
    return await rest.runs.get(runId, requestOptions);
  } catch (error) {
    if (deadline?.aborted && AbortError.isInstance(error))
      throw new TimeoutError(`run ${runId} did not end within ${options.timeout} ms`, { cause: error });
    throw error;
  } finally {
    ends?.close();
  }
}
