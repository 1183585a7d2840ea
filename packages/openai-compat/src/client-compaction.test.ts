import { describe, expect, it } from "vitest";
import { checkpointIn, checkpointMarker, splitAtCheckpoint } from "./checkpoint.ts";
import { detectClientCompaction } from "./client-compaction.ts";
import { agentConversationKey, conversationKey, derivedThreadId } from "./conversation-key.ts";
import { parseChatRequest } from "./parse-chat-request.ts";
import { parseResponsesRequest } from "./parse-responses-request.ts";

const noHeaders = () => undefined;
const chatTools = [{ type: "function" as const, function: { name: "read", parameters: { type: "object" } } }];
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

  const chatTools = [
    { type: "function" as const, function: { name: "read", parameters: { type: "object" } } },
  ];
  const history = [
    { role: "user" as const, content: "Fix the failing test" },
    { role: "assistant" as const, content: "Looking at it." },
  ];

  it("recognizes pi's transcript, a Gemini-style snapshot and Claude Code's text-only summary by shape", () => {
    const pi = parseChatRequest({
      model: "m",
      messages: [
        {
          role: "system",
          content: "You are a context summarization assistant. Do NOT continue the conversation.",
        },
        {
          role: "user",
          content:
            "<conversation>\n[User]: Fix the failing test\n[Assistant]: Looking at it.\n</conversation>\n\nThe messages above are a conversation to summarize.",
        },
      ],
    });
    expect(detectClientCompaction(pi, noHeaders)).toMatchObject({
      client: "pi",
      conversationItems: [],
      transcript: expect.stringContaining("[User]: Fix the failing test"),
    });
    const snapshot = parseChatRequest({
      model: "m",
      messages: [
        {
          role: "system",
          content: "You are the component that summarizes internal chat history into a given structure.",
        },
        ...history,
        { role: "user", content: "First, reason in your scratchpad. Then, generate the <state_snapshot>." },
      ],
    });
    expect(detectClientCompaction(snapshot, noHeaders)).toMatchObject({ client: "snapshot" });
    expect(detectClientCompaction(snapshot, noHeaders)?.conversationItems).toHaveLength(2);
    // Claude Code keeps its tools on the summary request and says "text only" instead.
    const claude = parseChatRequest({
      model: "m",
      messages: [
        ...history,
        {
          role: "user",
          content:
            "CRITICAL: Respond with TEXT ONLY. Do NOT call any tools.\n\nYour task is to create a detailed summary of the conversation so far.",
        },
      ],
      tools: chatTools,
    });
    expect(detectClientCompaction(claude, noHeaders)?.client).toBe("claude-code");
    // Its two partial forms (2.1.197): the recent portion after a kept prefix, and the part before a
    // kept tail ("up_to"), which names "this conversation". Both are Claude Code's, not just the shape.
    for (const instruction of [
      "Your task is to create a detailed summary of the RECENT portion of the conversation — the messages that follow earlier retained context.",
      "Your task is to create a detailed summary of this conversation. This summary will be placed at the start of a continuing session; newer messages that build on this context will follow after your summary (you do not see them here).",
    ]) {
      const partial = parseChatRequest({
        model: "m",
        messages: [
          ...history,
          {
            role: "user",
            content: `CRITICAL: Respond with TEXT ONLY. Do NOT call any tools.\n\n${instruction}`,
          },
        ],
        tools: chatTools,
      });
      expect(detectClientCompaction(partial, noHeaders)?.client, instruction).toBe("claude-code");
    }
    // Another client's words, the same shape: no tools, a request to summarize the conversation above.
    const generic = parseChatRequest({
      model: "m",
      messages: [
        ...history,
        { role: "user", content: "Write a compact summary of our conversation so far for a handoff." },
      ],
    });
    expect(detectClientCompaction(generic, noHeaders)?.client).toBe("generic");
  });

  it("leaves ordinary requests alone: tool turns, title requests, a lone question", () => {
    const withTools = parseChatRequest({
      model: "m",
      messages: [...history, { role: "user", content: "Summarize the conversation module's README" }],
      tools: chatTools,
    });
    expect(detectClientCompaction(withTools, noHeaders)).toBeNull();
    const title = parseChatRequest({
      model: "m",
      messages: [
        { role: "system", content: "You are a title generator. You output ONLY a thread title." },
        { role: "user", content: "Generate a title for this conversation:" },
        { role: "user", content: "Fix the failing test" },
      ],
    });
    expect(detectClientCompaction(title, noHeaders)).toBeNull();
    const question = parseChatRequest({
      model: "m",
      messages: [
        { role: "user", content: "Can you summarize the history of the Roman conversation manuals?" },
      ],
    });
    expect(detectClientCompaction(question, noHeaders)).toBeNull();
  });

  it("names the thread in the checkpoint, so a client without a session id finds it again", () => {
    const threadId = "6a6f8034-4455-80ee-a6d8-cb3a8cfb515c";
    expect(checkpointIn(`summary\n${checkpointMarker(7, threadId)}\nmore`)).toEqual({
      afterSeq: 7,
      threadId,
    });
    expect(checkpointIn(checkpointMarker(7))).toEqual({ afterSeq: 7 });
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

  it("keys a client without a session id on its working directory and first user message", () => {
    const at = (system: string, cwd: string) =>
      parseChatRequest({
        model: "m",
        messages: [
          { role: "system", content: `${system}\nCurrent working directory: ${cwd}` },
          { role: "user", content: "Fix the failing test" },
        ],
        tools: chatTools,
      });
    const key = conversationKey(at("pi, Saturday 10:00", "/work/a"), noHeaders);
    expect(key.source).toBe("content");
    // The system prompt changed (a date, a status line): the same session.
    expect(conversationKey(at("pi, Saturday 10:05", "/work/a"), noHeaders)).toEqual(key);
    // The same first prompt in another folder: another session.
    expect(conversationKey(at("pi, Saturday 10:00", "/work/b"), noHeaders)).not.toEqual(key);
  });

  it("derives thread ids per tenant", () => {
    const id = derivedThreadId("t1", "cache:p1|agent");
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(derivedThreadId("t1", "cache:p1|agent")).toBe(id);
    expect(derivedThreadId("t2", "cache:p1|agent")).not.toBe(id);
  });
});
