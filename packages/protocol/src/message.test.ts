import { describe, expect, it } from "vitest";
import { contentText, ModelProfile, StoredMessage } from "./index.ts";

describe("messages and profiles", () => {
  it("applies DESIGN §5 defaults to a bare profile", () => {
    const profile = ModelProfile.parse({});
    expect(profile).toMatchObject({
      model: "sim",
      triggerRatio: 0.66,
      keepRatio: 0.05,
      fallbackKeepMessages: 6,
    });
    expect(profile.maxInputTokens).toBeUndefined();
  });

  it("validates stored messages", () => {
    const message = StoredMessage.parse({
      id: "m1",
      agentId: "a",
      seq: 0,
      role: "tool",
      content: "x",
      toolCallId: "c1",
      toolStatus: "cancelled",
      tokenCount: 3,
      createdAt: 1,
    });
    expect(message.toolStatus).toBe("cancelled");
    expect(StoredMessage.safeParse({ ...message, toolStatus: "maybe" }).success).toBe(false);
  });

  it("reads text out of content parts", () => {
    expect(
      contentText([
        { type: "text", text: "a" },
        { type: "image_url", image_url: { url: "data:" } },
        { type: "text", text: "b" },
      ]),
    ).toBe("ab");
    expect(contentText(null)).toBe("");
  });
});
