import type { StoredMessage } from "@longrun/protocol";
import { describe, expect, it } from "vitest";
import { capClientToolResults } from "./client-tool-results.ts";

const fact = (seq: number, message: Partial<StoredMessage>): StoredMessage => ({
  id: `m${seq}`,
  agentId: "a",
  seq,
  role: "tool",
  content: "",
  tokenCount: 99,
  createdAt: 0,
  ...message,
});

describe("a gateway client's tool results in the projection", () => {
  const profile = { maxInputTokens: 16_384 };
  const big = `${"a".repeat(20_000)}${"z".repeat(20_000)}`;

  it("cuts a long result to ~15 % of the window, head and tail kept around a marker saying what was cut", () => {
    const [capped] = capClientToolResults([fact(1, { content: big, toolCallId: "c1" })], profile);
    const text = String(capped!.content);
    expect(text.length).toBeLessThanOrEqual(Math.floor(16_384 * 0.15 * 3.5));
    expect(text).toMatch(/\[output cut: \d+ of 40000 characters omitted\]/);
    expect(text.startsWith("aaa")).toBe(true);
    expect(text.endsWith("zzz")).toBe(true);
    // Counted again: the stored count measured the whole result.
    expect(capped!.tokenCount).toBe(0);
    expect(capped!.toolCallId).toBe("c1");
  });

  it("leaves short results, other roles and the facts passed in untouched", () => {
    const facts = [
      fact(1, { role: "user", content: big }),
      fact(2, { content: "short" }),
      fact(3, { content: big }),
    ];
    const capped = capClientToolResults(facts, profile);
    expect(capped[0]).toBe(facts[0]);
    expect(capped[1]).toBe(facts[1]);
    expect(facts[2]!.content).toBe(big);
    expect(String(capped[2]!.content).length).toBeLessThan(big.length);
  });

  it("shares the cap among the text parts of a result in parts, images kept", () => {
    const image = { type: "image_url" as const, image_url: { url: "data:image/png;base64,AAAA" } };
    const [capped] = capClientToolResults(
      [fact(1, { content: [{ type: "text", text: big }, image, { type: "text", text: "tail note" }] })],
      profile,
    );
    const parts = capped!.content as Array<{ type: string; text?: string }>;
    expect(parts).toHaveLength(3);
    expect(parts[0]!.text!.length).toBeLessThan(10_000);
    expect(parts[1]).toEqual(image);
    expect(parts[2]!.text).toBe("tail note");
  });
});
