import type { SimFaultSpec } from "./faults.ts";
import type { SimScript } from "./model-options.ts";

/** Server configuration; every field can be changed at runtime on the object `startSimModel` returns. */
export interface SimModelConfig {
  /** Context window (max input tokens) unless the model string says `ctx=<n>`. */
  maxInputTokens: number;
  /** Step budget unless the model string says `steps=<n>`. */
  defaultSteps: number;
  /** Script unless the model string says `script=<name>`. */
  defaultScript: SimScript;
  /** Emit reasoning (tokens + encrypted state) unless the model string says `reasoning=0|1`. */
  reasoning: boolean;
  /** HMAC key for encrypted reasoning tokens. */
  secret: string;
  /** Faults applied to every request (besides per-request headers). */
  faults: SimFaultSpec | undefined;
  /** Delay before every answer, in milliseconds. */
  delayMs: number;
  /** Further delay before a summary's answer only (a summarizer slower than the agent's calls). */
  summaryDelayMs: number;
  /** Most requests kept in the log. */
  logLimit: number;
  /** Keep request bodies in the log. */
  logBodies: boolean;
}

export const DEFAULT_SIM_CONFIG: SimModelConfig = {
  maxInputTokens: 128_000,
  defaultSteps: 40,
  defaultScript: "explorer",
  reasoning: false,
  secret: "longrun-sim-model",
  faults: undefined,
  delayMs: 0,
  summaryDelayMs: 0,
  logLimit: 500,
  logBodies: true,
};
