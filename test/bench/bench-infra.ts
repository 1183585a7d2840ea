import { type Config, type Infrastructure, openLog } from "@longrun/cli";
import {
  createInProcessQueue,
  createMemoryBus,
  createMemoryLease,
  createMemoryWorkerRegistry,
} from "@longrun/queue";
import { createMemoryBreakerStore } from "@longrun/runtime";
import OpenAI from "openai";

/** One model call as the benches see it: when it went out, when it came back, whether it summarized. */
export interface ModelCall {
  start: number;
  end: number;
  /**
   * A summary call: without tools (standalone), or continuing the agent's request with `tool_choice:
   * "none"` (the sim's SUMMARY_REQUEST_RULE); agent steps always offer tools and let the model call them.
   */
  summary: boolean;
}

/** An `openai` client for the sim model that records each call's time into `calls`. */
export function timedModel(baseURL: string, calls: ModelCall[]): OpenAI {
  return new OpenAI({
    baseURL,
    apiKey: "sim",
    maxRetries: 0,
    fetch: async (url: string | URL | Request, init?: RequestInit) => {
      const start = performance.now();
      const response = await fetch(url, init);
      const body = typeof init?.body === "string" ? init.body : "";
      const summary = body !== "" && (!body.includes('"tools":') || body.includes('"tool_choice":"none"'));
      calls.push({ start, end: performance.now(), summary });
      return response;
    },
  });
}

/** Embedded infrastructure (libSQL file, in-process queue, memory bus and lease) around a model. */
export async function embeddedInfra(config: Config, model: OpenAI): Promise<Infrastructure> {
  return {
    store: await openLog(config),
    queue: createInProcessQueue(),
    bus: createMemoryBus(),
    lease: createMemoryLease(),
    breakerStore: createMemoryBreakerStore(),
    workers: createMemoryWorkerRegistry(),
    model,
  };
}

/** One agent's steps, read off its model calls (which are sequential when one agent runs). */
export interface StepTimes {
  /** Start of one agent call to the start of the next: the whole step, model call included. */
  intervals: number[];
  /** End of one agent call to the start of the next: the step's time outside the model. */
  outsideModel: number[];
}

/**
 * The steps of a single agent from its recorded calls: every two agent calls in a row. Pairs with a
 * summary call between them are left out (compaction is counted apart).
 */
export function stepTimes(calls: readonly ModelCall[]): StepTimes {
  const times: StepTimes = { intervals: [], outsideModel: [] };
  for (let index = 1; index < calls.length; index++) {
    const previous = calls[index - 1] as ModelCall;
    const call = calls[index] as ModelCall;
    if (previous.summary || call.summary) continue;
    times.intervals.push(call.start - previous.start);
    times.outsideModel.push(call.start - previous.end);
  }
  return times;
}
