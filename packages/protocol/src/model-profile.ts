import { z } from "zod";

export const TokenizerFamily = z.enum(["o200k_base", "cl100k_base"]);
export type TokenizerFamily = z.infer<typeof TokenizerFamily>;

/**
 * Defaults of DESIGN §5, used when a profile leaves a field out. The trigger is 66 % of the window,
 * not DESIGN's 75 %: measured with `longrun replay` on the corpus, with each answer carrying the usage a
 * provider reports as in a live run, 75 % cost 0.871 × the plain strategy at 16k and 0.847 × at 64k,
 * 66 % 0.843 × and 0.803 × at the same forward-use recall. One window is a jagged measure (±0.03 between
 * 14k and 18k, for every trigger); over windows 14k–18k and 60k–70k, 0.62–0.68 are within 0.004 of each
 * other, and 66 % is the one under 0.85 at both 16,000 and 16,384 (README, "What compaction costs").
 */
export const PROFILE_DEFAULTS = {
  triggerRatio: 0.66,
  keepRatio: 0.05,
  backgroundRatio: 0.6,
  fallbackTriggerTokens: 100_000,
  fallbackKeepMessages: 6,
  idleGapMs: 6 * 60 * 60 * 1000,
  microcompactKeep: 5,
  simSteps: 40,
  modelFirstByteTimeoutMs: 60_000,
  modelTimeoutMs: 10 * 60_000,
} as const;

/** What longrun knows about the model an agent talks to. */
/**
 * A thread made by the gateway (`/v1/chat/completions`, `/v1/responses`, `/v1/messages`): the client
 * conversation it holds, and whether longrun compacts it (`x-longrun-compaction: off` turns that off).
 */
export const GatewayProfile = z.object({
  key: z.string(),
  api: z.enum(["chat", "responses", "messages"]),
  client: z.string().optional(),
  compaction: z.enum(["on", "off"]).default("on"),
  /** The thread this one branched from when the client edited or dropped earlier history. */
  branchOf: z.string().optional(),
  /**
   * The client's own window in tokens, smaller than longrun's: declared (`x-longrun-client-window`) or
   * learned from the size at which the client asked for its own compaction. Usage reported to the
   * client is scaled to it, so the client does not compact again and again.
   */
  clientWindow: z.number().int().positive().optional(),
  /**
   * The upstream refused the reasoning state replayed from the facts up to this seq (its key changed,
   * or the chain is another's): that state is never sent again; state issued later is.
   */
  reasoningRefusedThrough: z.number().int().nonnegative().optional(),
});
export type GatewayProfile = z.infer<typeof GatewayProfile>;

/**
 * The wire format longrun's own agents call their model with: OpenAI Chat Completions (the default),
 * OpenAI Responses (`store: false`, encrypted reasoning inline) or Anthropic Messages.
 */
export const UpstreamApi = z.enum(["chat-completions", "responses", "anthropic-messages"]);
export type UpstreamApi = z.infer<typeof UpstreamApi>;

export const ModelProfile = z
  .object({
    model: z.string().min(1).default("sim"),
    /** Input window; unknown models fall back to the 100k trigger / 6 messages rule. */
    maxInputTokens: z.number().int().positive().optional(),
    maxOutputTokens: z.number().int().positive().optional(),
    tokenizer: TokenizerFamily.default("o200k_base"),
    summarizerModel: z.string().optional(),
    triggerRatio: z.number().gt(0).lte(1).default(PROFILE_DEFAULTS.triggerRatio),
    keepRatio: z.number().gt(0).lt(1).default(PROFILE_DEFAULTS.keepRatio),
    /**
     * Share of the trigger at which the older prefix is summarized in the background, off the step's
     * path, to be applied at the trigger if the history still begins with what it covered; 0: never.
     */
    backgroundRatio: z.number().min(0).lt(1).default(PROFILE_DEFAULTS.backgroundRatio),
    fallbackTriggerTokens: z.number().int().positive().default(PROFILE_DEFAULTS.fallbackTriggerTokens),
    fallbackKeepMessages: z.number().int().positive().default(PROFILE_DEFAULTS.fallbackKeepMessages),
    idleGapMs: z.number().int().nonnegative().default(PROFILE_DEFAULTS.idleGapMs),
    microcompactKeep: z.number().int().nonnegative().default(PROFILE_DEFAULTS.microcompactKeep),
    /** A model call with no byte of its answer after this long fails the step (retried by the job). */
    modelFirstByteTimeoutMs: z.number().int().positive().default(PROFILE_DEFAULTS.modelFirstByteTimeoutMs),
    /** A model call (or summary) still unfinished after this long fails likewise. */
    modelTimeoutMs: z.number().int().positive().default(PROFILE_DEFAULTS.modelTimeoutMs),
    /** Sim model only: how many steps the scripted agent works before it reports. */
    simSteps: z.number().int().positive().optional(),
    /** Sim model only: which scripted agent plays (default "explorer"). */
    simScript: z.string().optional(),
    /** Sim model only: emit encrypted reasoning state. */
    simReasoning: z.boolean().optional(),
    /** Present on gateway threads (see GatewayProfile). */
    gateway: GatewayProfile.optional(),
    /** Anthropic Messages only: extended thinking on, with this budget (at least 1024 tokens). */
    thinkingBudgetTokens: z.number().int().min(1024).optional(),
    /** Wire format of the agent's model calls; unset: chat-completions. */
    upstreamApi: UpstreamApi.optional(),
  })
  .meta({ id: "ModelProfile" });
export type ModelProfile = z.infer<typeof ModelProfile>;
export type ModelProfileInput = z.input<typeof ModelProfile>;

/** Bounds a client may ask for in a new thread's profile (a stored profile is not re-checked). */
export const PROFILE_LIMITS = {
  maxInputTokens: { min: 1024, max: 10_000_000 },
  /** Below half the window a compaction's own output (summary, kept tail, restored files) re-triggers it. */
  triggerRatio: { min: 0.5, max: 1 },
  /** The kept tail must leave room under the trigger for the summary and restored files. */
  keepRatio: { min: 0.01, max: 0.3 },
} as const;

/** A model as `GET /v1/models` lists it: the OpenAI list entry plus longrun's own fields. */
export const ModelInfo = z
  .object({
    id: z.string(),
    object: z.literal("model"),
    created: z.number().int(),
    owned_by: z.string(),
    /** longrun's extension; OpenAI-compatible clients ignore it. */
    longrun: z.object({
      /** The input window a new thread gets unless it names one; null when unknown. */
      maxInputTokens: z.number().int().positive().nullable(),
      /** The model threads get when they name none. */
      default: z.boolean(),
      /** Sim model only: the scripted agents a thread may pick with `simScript`. */
      simScripts: z.array(z.string()).optional(),
      /** The wire format longrun's agents call this model with. */
      upstreamApi: UpstreamApi.optional(),
    }),
  })
  .meta({ id: "ModelInfo" });
export type ModelInfo = z.infer<typeof ModelInfo>;

/** `GET /v1/models`, in the OpenAI list shape. */
export const ModelList = z
  .object({ object: z.literal("list"), data: z.array(ModelInfo) })
  .meta({ id: "ModelList" });
export type ModelList = z.infer<typeof ModelList>;
