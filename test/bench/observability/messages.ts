/** What one step process of the observability bench tells the bench, once, before it exits. */
export type FromStepProcess =
  | {
      type: "result";
      /** How the run ended (`run.completed` expected). */
      status: string;
      /** Whether the process exported spans (an OTLP endpoint was set). */
      tracing: boolean;
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
