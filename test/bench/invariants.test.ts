import type { ChatMessage } from "@longrun/protocol";
import { describe, expect, it } from "vitest";
import { callPoints, parseTranscript, subsampleEvenly } from "./corpus.ts";
import { fits, keepsLastToolResults, keepsLatestUser, pairingViolations, satisfiesI1 } from "./invariants.ts";
import { listTokens } from "./tokens.ts";

function call(id: string, name = "read_file"): NonNullable<ChatMessage["tool_calls"]>[number] {
  return { id, type: "function", function: { name, arguments: `{"path":"${id}.ts"}` } };
}
const user = (content: string): ChatMessage => ({ role: "user", content });
const assistant = (content: string, ...ids: string[]): ChatMessage =>
  ids.length === 0
    ? { role: "assistant", content }
    : { role: "assistant", content, tool_calls: ids.map((id) => call(id)) };
const result = (id: string, content = `result ${id}`): ChatMessage => ({
  role: "tool",
  tool_call_id: id,
  content,
});

const valid: ChatMessage[] = [
  { role: "system", content: "sys" },
  user("task"),
  assistant("two reads", "a", "b"),
  result("b"),
  result("a"),
  assistant("one more", "c"),
  result("c"),
  user("and then?"),
  assistant("done"),
];

describe("I1 checker", () => {
  it("accepts paired calls, results in any order inside their block", () => {
    expect(pairingViolations(valid)).toEqual([]);
    expect(satisfiesI1([])).toBe(true);
  });

  it("flags a call without its result", () => {
    const broken = [user("task"), assistant("x", "a", "b"), result("a"), user("next")];
    expect(pairingViolations(broken)).toEqual([{ index: 3, kind: "missing_result", callId: "b" }]);
  });

  it("flags a result that is not right after its call", () => {
    const separated = [user("task"), assistant("x", "a"), user("interjection"), result("a")];
    const kinds = pairingViolations(separated).map((violation) => violation.kind);
    expect(kinds).toEqual(["missing_result", "orphan_result"]);
  });

  it("flags orphan, duplicate results and reused call ids", () => {
    expect(pairingViolations([user("t"), result("z")])).toEqual([
      { index: 1, kind: "orphan_result", callId: "z" },
    ]);
    expect(pairingViolations([assistant("x", "a"), result("a"), result("a")])).toEqual([
      { index: 2, kind: "duplicate_result", callId: "a" },
    ]);
    expect(pairingViolations([assistant("x", "a"), result("a"), assistant("y", "a"), result("a")])).toEqual([
      { index: 2, kind: "duplicate_call", callId: "a" },
    ]);
  });
});

describe("kept-message checkers", () => {
  it("finds the latest user message verbatim", () => {
    expect(keepsLatestUser(valid, valid)).toBe(true);
    expect(keepsLatestUser(valid, valid.slice(0, 7))).toBe(false);
    // Same text under another role does not count.
    expect(keepsLatestUser(valid, [assistant("and then?")])).toBe(false);
    expect(keepsLatestUser([assistant("no user")], [])).toBe(true);
  });

  it("requires the last three results verbatim under their call ids", () => {
    expect(keepsLastToolResults(valid, valid, 3)).toBe(true);
    const cleared = valid.map((message) =>
      message.role === "tool" && message.tool_call_id === "b"
        ? { ...message, content: "[cleared]" }
        : message,
    );
    expect(keepsLastToolResults(valid, cleared, 3)).toBe(false);
    expect(keepsLastToolResults(valid, cleared, 1)).toBe(true);
    const renamed = valid.map((message) =>
      message.tool_call_id === "c" ? { ...message, tool_call_id: "x" } : message,
    );
    expect(keepsLastToolResults(valid, renamed, 1)).toBe(false);
  });

  it("measures fit with the given counter", () => {
    const tokens = listTokens(valid);
    expect(tokens).toBeGreaterThan(valid.length * 4);
    expect(fits(valid, tokens, listTokens)).toBe(true);
    expect(fits(valid, tokens - 1, listTokens)).toBe(false);
  });
});

describe("corpus helpers", () => {
  it("parses transcripts and finds call points", () => {
    const text = valid.map((message) => JSON.stringify(message)).join("\n");
    const messages = parseTranscript(`${text}\n\n`);
    expect(messages).toHaveLength(valid.length);
    expect(callPoints(messages)).toEqual([2, 5, 8]);
  });

  it("subsamples evenly", () => {
    const items = Array.from({ length: 100 }, (_, index) => index);
    const picked = subsampleEvenly(items, 4);
    expect(picked).toEqual([12, 37, 62, 87]);
    expect(subsampleEvenly(items, 200)).toHaveLength(100);
  });
});
