/** What one step process of the observability bench tells the bench, once, before it exits. */
export type FromStepProcess =
  | {
      type: "result";
      /** How the run ended (`run.completed` expected). */
      status: string;
      /** How the process traced: off, exported over OTLP/HTTP, or recorded and dropped. */
      tracing: "off" | "otlp" | "discarded";
      /** Spans the discarding exporter was given (0 unless `discarded`). */
      discardedSpans: number;
      logLevel: string;
      /** Agent model calls (one per step) and summary calls. */
      steps: number;
      summaries: number;
      compactions: number;
      /** Per step, in order (`stepTimes` of bench-infra): start to start, and outside the model call. */
      intervals: number[];
      outsideModel: number[];
      /** The process's CPU (user + system) from admission to the last span exported, sim model included. */
      cpuMs: number;
    }
  | { type: "failed"; message: string };

/** Set (to 1) in a step process's environment: tracing on with an exporter that drops every span. */
export const DISCARD_SPANS = "LONGRUN_BENCH_DISCARD_SPANS";
