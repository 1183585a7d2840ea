import type { ChatMessage } from "@longrun/protocol";
import { describe, expect, it } from "vitest";
import { repairToolPairs } from "./repair.ts";

const call = (id: string, name = "read_file") => ({
  id,
  type: "function" as const,
  function: { name, arguments: "{}" },
});
const result = (id: string, content = `out ${id}`): ChatMessage => ({
  role: "tool",
  tool_call_id: id,
  content,
});

describe("repairToolPairs", () => {
  it("moves parallel results right after their call, in call order, across other messages", () => {
    const messages: ChatMessage[] = [
      { role: "assistant", content: null, tool_calls: [call("a"), call("b")] },
      result("b"),
      { role: "user", content: "hurry" },
      result("a"),
    ];
    const repaired = repairToolPairs(messages);
    expect(repaired.messages.map((message) => message.tool_call_id ?? message.role)).toEqual([
      "assistant",
      "a",
      "b",
      "user",
    ]);
    expect(repaired.sourceIndex).toEqual([0, 3, 1, 2]);
  });

  it("answers a missing result with an explicit cancelled result, drops orphans and duplicates", () => {
    const messages: ChatMessage[] = [
      result("ghost"),
      { role: "assistant", content: "go", tool_calls: [call("a"), call("b", "bash")] },
      result("a"),
      result("a", "again"),
    ];
    const repaired = repairToolPairs(messages);
    expect(repaired.cancelled).toBe(1);
    expect(repaired.orphansDropped).toBe(1);
    expect(repaired.duplicatesDropped).toBe(1);
    const cancelled = repaired.messages[2];
    expect(cancelled?.tool_call_id).toBe("b");
    expect(cancelled?.content).toMatch(/bash .*cancelled or interrupted.*outcome is unknown/);
    expect(repaired.sourceIndex[2]).toBeNull();
    // Facts are untouched.
    expect(messages).toHaveLength(4);
  });

  it("drops a repeated call id from a later assistant message", () => {
    const messages: ChatMessage[] = [
      { role: "assistant", content: null, tool_calls: [call("a")] },
      result("a"),
      { role: "assistant", content: "retry", tool_calls: [call("a")] },
    ];
    const repaired = repairToolPairs(messages);
    expect(repaired.messages[2]).toEqual({ role: "assistant", content: "retry" });
    expect(repaired.duplicatesDropped).toBe(1);
  });
});
