import { z } from "zod";

const ByProfile = z.object({ openai: z.number(), anthropic: z.number() });

/**
 * GET /v1/threads/:id/cost: what the thread's model calls cost so far, in billed-equivalent tokens (units
 * of one uncached input token: cache reads 0.1, cache writes 1 OpenAI-style and 1.25 Anthropic-style,
 * output × `outputRatio`), and beside it what the plain way other agent CLIs compact (append-only, one
 * summary at 75 % of the window) would have cost on the same conversations.
 */
export const ThreadCost = z
  .object({
    threadId: z.string(),
    outputRatio: z.number().positive(),
    /** Model calls counted: the agents' steps and the summary calls (background ones included). */
    calls: z.object({ steps: z.number().int().nonnegative(), summaries: z.number().int().nonnegative() }),
    /** Tokens of every call: input read from cache, input not read from cache, output. */
    tokens: z.object({
      cacheRead: z.number().int().nonnegative(),
      uncached: z.number().int().nonnegative(),
      output: z.number().int().nonnegative(),
    }),
    /** Everything billed: steps (their answers included) and summary calls. */
    billed: ByProfile,
    /** Billed for the summary calls alone. */
    summaries: ByProfile,
    /**
     * What compaction decides: the steps' input and the summary calls in full — the agents' own answers
     * are left out, being the same whatever compacts. This is what `plain` is compared with.
     */
    compared: ByProfile,
    /**
     * The plain strategy on the same messages (null for gateway threads, whose tool definitions belong to
     * the client): its billed input and summary calls, and how often it would have compacted.
     */
    plain: z
      .object({
        compared: ByProfile,
        compactions: z.number().int().nonnegative(),
        summaryCalls: z.number().int().nonnegative(),
      })
      .nullable(),
    /**
     * plain − compared (negative: longrun cost more); null without a plain figure. The plain figure is
     * estimated within the thread; with `source` "provider" longrun's may include a prefix cached by
     * other threads' requests.
     */
    saved: ByProfile.nullable(),
    /**
     * Where the token counts come from: the provider's reported cached tokens, the runtime's estimate of
     * the shared prefix, both, or no call yet.
     */
    source: z.enum(["provider", "estimate", "mixed", "none"]),
  })
  .meta({ id: "ThreadCost" });
export type ThreadCost = z.infer<typeof ThreadCost>;
