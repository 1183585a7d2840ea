import { PROFILE_DEFAULTS } from "@longrun/protocol";
import { describe, expect, it } from "vitest";
import { knownModel, resolveProfile, SIM_DEFAULT_MAX_INPUT_TOKENS } from "./profiles.ts";

describe("resolveProfile", () => {
  it("gives the sim model its configured window, else 128k", () => {
    expect(resolveProfile("sim").maxInputTokens).toBe(SIM_DEFAULT_MAX_INPUT_TOKENS);
    expect(resolveProfile({ model: "sim", maxInputTokens: 8_000 }).maxInputTokens).toBe(8_000);
    expect(resolveProfile("sim:ctx=16000").maxInputTokens).toBe(16_000);
    expect(resolveProfile({}).model).toBe("sim");
  });

  it("knows OpenAI windows, output limits and tokenizers", () => {
    const gpt4o = resolveProfile("gpt-4o-2024-08-06");
    expect(gpt4o).toMatchObject({
      maxInputTokens: 128_000 - 16_384,
      maxOutputTokens: 16_384,
      tokenizer: "o200k_base",
    });
    expect(resolveProfile("gpt-4o-mini").maxInputTokens).toBe(111_616);
    expect(resolveProfile("openai/gpt-4.1").maxInputTokens).toBe(1_047_576 - 16_384);
    expect(resolveProfile("gpt-4").tokenizer).toBe("cl100k_base");
    expect(resolveProfile("gpt-4").maxInputTokens).toBe(8_192 - 2_048);
    expect(resolveProfile("o3-mini").maxOutputTokens).toBe(100_000);
    expect(resolveProfile("gpt-5").maxInputTokens).toBe(272_000);
    expect(knownModel("o1-mini")?.contextWindow).toBe(128_000);
    expect(knownModel("o1")?.contextWindow).toBe(200_000);
  });

  it("lets explicit fields win", () => {
    const profile = resolveProfile({ model: "gpt-4o", maxInputTokens: 50_000, tokenizer: "cl100k_base" });
    expect(profile).toMatchObject({
      maxInputTokens: 50_000,
      tokenizer: "cl100k_base",
      maxOutputTokens: 16_384,
    });
  });

  it("falls back to DESIGN §5 for an unknown model", () => {
    const profile = resolveProfile("my-local-llama");
    expect(profile.maxInputTokens).toBeUndefined();
    expect(profile.fallbackTriggerTokens).toBe(PROFILE_DEFAULTS.fallbackTriggerTokens);
    expect(profile.fallbackKeepMessages).toBe(6);
    expect(profile.tokenizer).toBe("o200k_base");
  });

  it("defaults the summarizer to the same model", () => {
    expect(resolveProfile("gpt-4o").summarizerModel).toBe("gpt-4o");
    expect(resolveProfile({ model: "gpt-4o", summarizerModel: "gpt-4o-mini" }).summarizerModel).toBe(
      "gpt-4o-mini",
    );
  });
});
