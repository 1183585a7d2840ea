import { describe, expect, it } from "vitest";
import { checkpointMarker, splitAtCheckpoint } from "./checkpoint.ts";
import { detectClientCompaction } from "./client-compaction.ts";
import { agentConversationKey, conversationKey, derivedThreadId } from "./conversation-key.ts";
import { parseChatRequest } from "./parse-chat-request.ts";
import { parseResponsesRequest } from "./parse-responses-request.ts";

const noHeaders = () => undefined;
const headers = (values: Record<string, string>) => (name: string) => values[name];

describe("client compaction requests", () => {
  const codexCompaction = parseResponsesRequest({
    model: "m",
    input: [
      { type: "message", role: "developer", content: "You are Codex." },
      { type: "message", role: "user", content: "task" },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "working" }] },
      {
        type: "message",
        role: "user",
        content: "You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff summary…",
      },
    ],
    tools: [],
    prompt_cache_key: "s1",
  });

  it("recognizes Codex's checkpoint request (no tools or request_kind compaction) and keeps its conversation", () => {
    const metadata = headers({ "x-codex-turn-metadata": '{"request_kind":"compaction","turn_id":"t"}' });
    const detected = detectClientCompaction(codexCompaction, metadata);
    expect(detected?.client).toBe("codex");
    expect(detected?.conversationItems.map((item) => item.content)).toEqual(["task", "working"]);
    expect(detectClientCompaction(codexCompaction, noHeaders)?.client).toBe("codex");
    // The same words with tools and an ordinary turn are a user's message, not a compaction.
    const withTools = { ...codexCompaction, tools: [{ type: "function" as const, function: { name: "x" } }] };
    expect(
      detectClientCompaction(withTools, headers({ "x-codex-turn-metadata": '{"request_kind":"turn"}' })),
    ).toBeNull();
  });

  it("recognizes opencode's summarization agent", () => {
    const turn = parseChatRequest({
      model: "m",
      messages: [
        { role: "system", content: "You are a context summarization agent. You are given a conversation…" },
        { role: "user", content: "Here is the conversation so far: <conversation>…</conversation>" },
      ],
    });
    expect(detectClientCompaction(turn, noHeaders)?.client).toBe("opencode");
  });

  it("finds where a rebuilt history continues the log", () => {
    const items = [
      { role: "user" as const, content: "task" },
      { role: "user" as const, content: `Another language model started…\n${checkpointMarker(41)}\nsummary` },
      { role: "assistant" as const, content: "next" },
    ];
    expect(splitAtCheckpoint(items)).toEqual({ afterSeq: 41, rest: [items[2]] });
    expect(splitAtCheckpoint(items.slice(0, 1))).toBeNull();
  });
});

describe("conversation keys", () => {
  const tools = [{ type: "function", function: { name: "bash" } }];
  const main = parseChatRequest({
    model: "m",
    messages: [
      { role: "system", content: "You are opencode." },
      { role: "user", content: "a" },
    ],
    tools,
  });
  const title = parseChatRequest({
    model: "m",
    messages: [
      { role: "system", content: "You are a title generator." },
      { role: "user", content: "a" },
    ],
  });
  const session = headers({ "x-session-id": "ses_1" });

  it("keeps a session's agent conversation apart from its side requests", () => {
    expect(conversationKey(main, session)).toEqual({ key: "session:ses_1|agent", source: "session" });
    expect(conversationKey(title, session).key).toMatch(/^session:ses_1\|side:/);
    expect(agentConversationKey(title, session).key).toBe("session:ses_1|agent");
  });

  it("prefers an explicit header, then prompt_cache_key, and falls back to the content", () => {
    expect(
      conversationKey(main, headers({ "x-longrun-conversation": "mine", "x-session-id": "s" })).key,
    ).toBe("conversation:mine");
    const codex = parseResponsesRequest({
      model: "m",
      input: "hi",
      prompt_cache_key: "p1",
      tools: [{ type: "function", name: "f" }],
    });
    expect(conversationKey(codex, session).key).toBe("cache:p1|agent");
    expect(conversationKey(main, noHeaders).source).toBe("content");
    expect(conversationKey(main, noHeaders)).toEqual(conversationKey(main, noHeaders));
  });

  it("derives thread ids per tenant", () => {
    const id = derivedThreadId("t1", "cache:p1|agent");
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(derivedThreadId("t1", "cache:p1|agent")).toBe(id);
    expect(derivedThreadId("t2", "cache:p1|agent")).not.toBe(id);
  });
});
