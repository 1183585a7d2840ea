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
  /** The summarizer is called without tools; agent steps always offer them. */
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
      const summary = typeof init?.body === "string" && !init.body.includes('"tools":');
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
