import { ModelProfile } from "@longrun/protocol";
import { describe, expect, it } from "vitest";
import { cacheFiguresForClient, learnedClientWindow, usageForClient } from "./client-window.ts";

const profile = (clientWindow?: number) =>
  ModelProfile.parse({
    model: "m",
    maxInputTokens: 16_000,
    gateway: { key: "k", api: "chat", ...(clientWindow ? { clientWindow } : {}) },
  });
const usage = { promptTokens: 12_000, completionTokens: 200, totalTokens: 12_200, cachedTokens: 8_000 };

describe("usage told to a client with its own window", () => {
  it("is unchanged without a client window, or with one at least twice longrun's", () => {
    expect(usageForClient(usage, profile())).toBe(usage);
    expect(usageForClient(usage, profile(40_000))).toBe(usage);
  });

  it("maps longrun's window onto half the client's, so the client's next request looks small to it", () => {
    const told = usageForClient(usage, profile(8_000))!;
    // 12,000 of longrun's 16,000 → 3,000 of the client's 8,000.
    expect(told).toEqual({
      promptTokens: 3_000,
      completionTokens: 200,
      totalTokens: 3_200,
      cachedTokens: 2_000,
    });
    const full = usageForClient({ ...usage, promptTokens: 20_000 }, profile(8_000))!;
    expect(full.promptTokens).toBe(4_000);
    expect(cacheFiguresForClient({ readTokens: 8_000, writeTokens: 4_000 }, profile(8_000))).toEqual({
      readTokens: 2_000,
      writeTokens: 1_000,
    });
  });

  it("learns the window from the size the client was told when it asked to compact, and only shrinks it", () => {
    expect(learnedClientWindow(usage, profile())).toBe(12_200);
    expect(learnedClientWindow({ ...usage, promptTokens: 2_000, totalTokens: 2_200 }, profile(8_000))).toBe(
      2_200,
    );
    expect(learnedClientWindow(usage, profile(8_000))).toBe(8_000);
    expect(learnedClientWindow(undefined, profile(8_000))).toBe(8_000);
  });
});
