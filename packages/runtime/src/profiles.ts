import { ModelProfile, type ModelProfileInput, type TokenizerFamily } from "@longrun/protocol";

/** What is known about a model family: total context window, output cap, tokenizer. */
export interface KnownModel {
  contextWindow: number;
  maxOutputTokens: number;
  tokenizer: TokenizerFamily;
  /** Input limit when the provider states one apart from the window (gpt-5). */
  maxInputTokens?: number;
}

/** The sim model's window when nothing else says (matches the sim server's default). */
export const SIM_DEFAULT_MAX_INPUT_TOKENS = 128_000;

// Longest prefix wins, so "gpt-4o-mini-2024-07-18" finds "gpt-4o-mini" and "o3-mini" beats "o3".
const KNOWN_MODELS: Record<string, KnownModel> = {
  "gpt-5": {
    contextWindow: 400_000,
    maxOutputTokens: 128_000,
    tokenizer: "o200k_base",
    maxInputTokens: 272_000,
  },
  "gpt-4.1": { contextWindow: 1_047_576, maxOutputTokens: 32_768, tokenizer: "o200k_base" },
  "gpt-4.5": { contextWindow: 128_000, maxOutputTokens: 16_384, tokenizer: "o200k_base" },
  "gpt-4o": { contextWindow: 128_000, maxOutputTokens: 16_384, tokenizer: "o200k_base" },
  "chatgpt-4o": { contextWindow: 128_000, maxOutputTokens: 16_384, tokenizer: "o200k_base" },
  "gpt-4-turbo": { contextWindow: 128_000, maxOutputTokens: 4_096, tokenizer: "cl100k_base" },
  "gpt-4-0125": { contextWindow: 128_000, maxOutputTokens: 4_096, tokenizer: "cl100k_base" },
  "gpt-4-1106": { contextWindow: 128_000, maxOutputTokens: 4_096, tokenizer: "cl100k_base" },
  "gpt-4-32k": { contextWindow: 32_768, maxOutputTokens: 4_096, tokenizer: "cl100k_base" },
  "gpt-4": { contextWindow: 8_192, maxOutputTokens: 4_096, tokenizer: "cl100k_base" },
  "gpt-3.5-turbo": { contextWindow: 16_385, maxOutputTokens: 4_096, tokenizer: "cl100k_base" },
  o1: { contextWindow: 200_000, maxOutputTokens: 100_000, tokenizer: "o200k_base" },
  "o1-mini": { contextWindow: 128_000, maxOutputTokens: 65_536, tokenizer: "o200k_base" },
  "o1-preview": { contextWindow: 128_000, maxOutputTokens: 32_768, tokenizer: "o200k_base" },
  o3: { contextWindow: 200_000, maxOutputTokens: 100_000, tokenizer: "o200k_base" },
  "o3-mini": { contextWindow: 200_000, maxOutputTokens: 100_000, tokenizer: "o200k_base" },
  "o4-mini": { contextWindow: 200_000, maxOutputTokens: 100_000, tokenizer: "o200k_base" },
};

/** The largest output reservation subtracted from a window to get the input limit. */
const MAX_OUTPUT_RESERVE = 16_384;

function isSim(model: string): boolean {
  return model === "sim" || /^sim[:/@-]/.test(model);
}

/** Look a model name up (provider prefixes such as "openai/" and date suffixes are ignored). */
export function knownModel(model: string): KnownModel | undefined {
  const name = model.toLowerCase().replace(/^.*\//, "");
  let best: string | undefined;
  for (const key of Object.keys(KNOWN_MODELS)) {
    const matches = name === key || name.startsWith(`${key}-`) || name.startsWith(`${key}:`);
    if (matches && (best === undefined || key.length > best.length)) best = key;
  }
  return best === undefined ? undefined : KNOWN_MODELS[best];
}

/** Input limit of a known model: its stated input limit, else the window minus an output reserve. */
export function knownInputLimit(known: KnownModel): number {
  if (known.maxInputTokens !== undefined) return known.maxInputTokens;
  const reserve = Math.min(known.maxOutputTokens, MAX_OUTPUT_RESERVE, Math.floor(known.contextWindow / 4));
  return known.contextWindow - reserve;
}

/** A profile with every default filled in; `summarizerModel` is always set. */
export type ResolvedProfile = ModelProfile & { summarizerModel: string };

/**
 * Resolve a model profile: explicit fields win, then what is known about the model, then the DESIGN §5
 * fallback (an unknown model gets no maxInputTokens: trigger at 100k tokens, keep 6 messages).
 * The sim model's window is `ctx=<n>` in its name, else 128,000.
 */
export function resolveProfile(input: ModelProfileInput | string): ResolvedProfile {
  const given: ModelProfileInput = typeof input === "string" ? { model: input } : input;
  const model = given.model ?? "sim";
  const filled: ModelProfileInput = { ...given, model };
  if (isSim(model)) {
    const ctx = /ctx=(\d+)/.exec(model);
    filled.maxInputTokens ??= ctx ? Number(ctx[1]) : SIM_DEFAULT_MAX_INPUT_TOKENS;
  } else {
    const known = knownModel(model);
    if (known) {
      filled.maxInputTokens ??= knownInputLimit(known);
      filled.maxOutputTokens ??= known.maxOutputTokens;
      filled.tokenizer ??= known.tokenizer;
    }
  }
  const profile = ModelProfile.parse(filled);
  return { ...profile, summarizerModel: profile.summarizerModel ?? profile.model };
}
