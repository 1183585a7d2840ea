import { z } from "zod";

export const TokenizerFamily = z.enum(["o200k_base", "cl100k_base"]);
export type TokenizerFamily = z.infer<typeof TokenizerFamily>;

/** Defaults of DESIGN §5, used when a profile leaves a field out. */
export const PROFILE_DEFAULTS = {
  triggerRatio: 0.75,
  keepRatio: 0.1,
  fallbackTriggerTokens: 100_000,
  fallbackKeepMessages: 6,
  idleGapMs: 6 * 60 * 60 * 1000,
  microcompactKeep: 5,
  simSteps: 40,
} as const;

/** What longrun knows about the model an agent talks to. */
/**
 * A thread made by the OpenAI-compatible gateway (`/v1/chat/completions`, `/v1/responses`): the client
 * conversation it holds, and whether longrun compacts it (`x-longrun-compaction: off` turns that off).
 */
export const GatewayProfile = z.object({
  key: z.string(),
  api: z.enum(["chat", "responses"]),
  client: z.string().optional(),
  compaction: z.enum(["on", "off"]).default("on"),
  /** The thread this one branched from when the client edited or dropped earlier history. */
  branchOf: z.string().optional(),
});
export type GatewayProfile = z.infer<typeof GatewayProfile>;

export const ModelProfile = z.object({
  model: z.string().min(1).default("sim"),
  /** Input window; unknown models fall back to the 100k trigger / 6 messages rule. */
  maxInputTokens: z.number().int().positive().optional(),
  maxOutputTokens: z.number().int().positive().optional(),
  tokenizer: TokenizerFamily.default("o200k_base"),
  summarizerModel: z.string().optional(),
  triggerRatio: z.number().gt(0).lte(1).default(PROFILE_DEFAULTS.triggerRatio),
  keepRatio: z.number().gt(0).lt(1).default(PROFILE_DEFAULTS.keepRatio),
  fallbackTriggerTokens: z.number().int().positive().default(PROFILE_DEFAULTS.fallbackTriggerTokens),
  fallbackKeepMessages: z.number().int().positive().default(PROFILE_DEFAULTS.fallbackKeepMessages),
  idleGapMs: z.number().int().nonnegative().default(PROFILE_DEFAULTS.idleGapMs),
  microcompactKeep: z.number().int().nonnegative().default(PROFILE_DEFAULTS.microcompactKeep),
  /** Sim model only: how many steps the scripted agent works before it reports. */
  simSteps: z.number().int().positive().optional(),
  /** Sim model only: which scripted agent plays (default "explorer"). */
  simScript: z.string().optional(),
  /** Sim model only: emit encrypted reasoning state. */
  simReasoning: z.boolean().optional(),
  /** Present on gateway threads (see GatewayProfile). */
  gateway: GatewayProfile.optional(),
});
export type ModelProfile = z.infer<typeof ModelProfile>;
export type ModelProfileInput = z.input<typeof ModelProfile>;
