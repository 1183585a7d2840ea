import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { conversationKey } from "../conversation-key.ts";
import { encodeProviderState } from "../encrypted-state.ts";
import { fingerprint } from "../fingerprint.ts";
import { InvalidMessagesRequest } from "./messages-facts.ts";
import { MessagesRequestBody } from "./messages-request.ts";
import { parseMessagesRequest } from "./parse-messages-request.ts";

/** Claude Code 2.1.197's first two requests, as recorded (texts and tool descriptions trimmed). */
const recorded = JSON.parse(
  readFileSync(new URL("./fixtures/claude-code-requests.json", import.meta.url), "utf8"),
) as Array<{ headers: Record<string, string>; body: unknown }>;

const [first, second] = recorded.map((request) => ({
  headers: request.headers,
  body: MessagesRequestBody.parse(request.body),
}));

describe("parseMessagesRequest on Claude Code's requests", () => {
  it("takes the three system blocks as the system text and keeps the mid-conversation system entry in order", () => {
    const { turn, options } = parseMessagesRequest(first!.body);
    expect(turn.api).toBe("messages");
    expect(turn.system.split("\n\n")[0]).toBe(
      "x-anthropic-billing-header: cc_version=2.1.197.7f9; cc_entrypoint=sdk-cli;",
    );
    expect(turn.system).toContain("You are a Claude agent, built on Anthropic's Claude Agent SDK.");
    expect(turn.items.map((item) => item.role)).toEqual(["user", "system"]);
    expect(turn.items[0]!.content).toMatch(/<system-reminder>[\s\S]*\nCreate hello\.py/);
    expect(turn.items[1]!.content).toMatch(/^Available agent types for the Agent tool:/);
    expect(options).toEqual({
      thinking: true,
      cacheControl: true,
      contextEdits: ["clear_thinking_20251015"],
    });
    // keep: "all" clears nothing.
    expect(turn.keepReasoningTurns).toBeUndefined();
    expect(turn.thinking).toEqual({ type: "adaptive" });
  });

  it("turns the 24 tools into functions with their input schema, and max_tokens into the output limit", () => {
    const { turn } = parseMessagesRequest(first!.body);
    expect(turn.tools).toHaveLength(24);
    const bash = turn.tools.find((tool) => tool.function.name === "Bash");
    expect(bash?.function.parameters).toMatchObject({
      type: "object",
      properties: { command: {}, description: {} },
    });
    expect(turn.toolRoutes.Edit).toEqual({ kind: "function", name: "Edit" });
    expect(turn.droppedTools).toEqual([]);
    expect(turn.maxOutputTokens).toBe(32_000);
    expect(turn.sampling).toEqual({ max_completion_tokens: 32_000 });
    expect(turn.stream).toBe(true);
  });

  it("keys the conversation on the session id of metadata.user_id, the same for both requests", () => {
    const header = (headers: Record<string, string>) => (name: string) => headers[name];
    const a = parseMessagesRequest(first!.body).turn;
    const b = parseMessagesRequest(second!.body).turn;
    expect(a.promptCacheKey).toBe("a300fbe6-5e7b-4f18-a0bb-a1a0af66037a");
    expect(conversationKey(a, header(first!.headers)).key).toBe(
      "cache:a300fbe6-5e7b-4f18-a0bb-a1a0af66037a|agent",
    );
    expect(conversationKey(b, header(second!.headers)).key).toBe(
      conversationKey(a, header(first!.headers)).key,
    );
  });

  it("reads the tool round trip as an assistant call followed by its tool fact, extending the first history", () => {
    const a = parseMessagesRequest(first!.body).turn;
    const b = parseMessagesRequest(second!.body).turn;
    expect(b.items.map((item) => item.role)).toEqual(["user", "system", "assistant", "tool"]);
    expect(b.items[2]).toEqual({
      role: "assistant",
      content: "Hello from the recording stub.",
      toolCalls: [
        {
          id: "toolu_stub_2",
          type: "function",
          function: {
            name: "Bash",
            arguments: JSON.stringify({
              command: `echo 'print("hello")' > hello.py && python3 hello.py`,
              description: "Create and run hello.py",
            }),
          },
        },
      ],
    });
    expect(b.items[3]).toEqual({ role: "tool", content: "hello", toolCallId: "toolu_stub_2" });
    // The cache marker moved to the last block: the earlier items still match the first request's.
    expect(b.items.slice(0, 2).map(fingerprint)).toEqual(a.items.map(fingerprint));
  });
});

describe("parseMessagesRequest rules", () => {
  const base = { model: "sim", max_tokens: 100 };

  it("refuses a tool_use without its tool_result in the next message, and a tool_result without its call", () => {
    const unanswered = MessagesRequestBody.parse({
      ...base,
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "Bash", input: {} }] },
        { role: "user", content: "and?" },
      ],
    });
    expect(() => parseMessagesRequest(unanswered)).toThrow(/t1/);
    expect(() => parseMessagesRequest(unanswered)).toThrow(InvalidMessagesRequest);
    const orphan = MessagesRequestBody.parse({
      ...base,
      messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "t9", content: "x" }] }],
    });
    expect(() => parseMessagesRequest(orphan)).toThrow(/t9/);
  });

  it("puts a user message's tool results before its text, marks errors, and allows a last unanswered call", () => {
    const { turn } = parseMessagesRequest(
      MessagesRequestBody.parse({
        ...base,
        messages: [
          { role: "user", content: "go" },
          {
            role: "assistant",
            content: [
              { type: "tool_use", id: "a", name: "Read", input: { file_path: "/x" } },
              { type: "tool_use", id: "b", name: "Read", input: { file_path: "/y" } },
            ],
          },
          {
            role: "user",
            content: [
              { type: "tool_result", tool_use_id: "a", content: [{ type: "text", text: "A" }] },
              { type: "tool_result", tool_use_id: "b", content: "no such file", is_error: true },
              { type: "text", text: "keep going" },
            ],
          },
          {
            role: "assistant",
            content: [{ type: "tool_use", id: "c", name: "Bash", input: { command: "ls" } }],
          },
        ],
      }),
    );
    expect(turn.items.map((item) => [item.role, item.toolCallId ?? null, item.toolStatus ?? null])).toEqual([
      ["user", null, null],
      ["assistant", null, null],
      ["tool", "a", null],
      ["tool", "b", "error"],
      ["user", null, null],
      ["assistant", null, null],
    ]);
    expect(turn.items[2]!.content).toBe("A");
  });

  it("reads back the provider state of thinking blocks longrun signed, byte for byte; foreign ones carry none", () => {
    const state = {
      reasoningDetails: [{ type: "reasoning.encrypted" as const, data: "sim:abc", id: "rs_1" }],
    };
    const signature = encodeProviderState(state);
    const { turn } = parseMessagesRequest(
      MessagesRequestBody.parse({
        ...base,
        messages: [
          { role: "user", content: "go" },
          {
            role: "assistant",
            content: [
              { type: "thinking", thinking: "hmm", signature },
              { type: "tool_use", id: "t1", name: "Bash", input: { command: "ls" } },
            ],
          },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "ok" }] },
          {
            role: "assistant",
            content: [
              { type: "thinking", thinking: "from elsewhere", signature: "EqQBCkgIARABGAIiQ" },
              { type: "text", text: "done" },
            ],
          },
        ],
      }),
    );
    expect(turn.items[1]!.providerState).toEqual(state);
    expect(encodeProviderState(turn.items[1]!.providerState!)).toBe(signature);
    expect(turn.items[3]!.providerState).toBeUndefined();
  });

  it("maps tool_choice, clear_thinking's keep, images and server tools", () => {
    const { turn, options } = parseMessagesRequest(
      MessagesRequestBody.parse({
        ...base,
        system: "be brief",
        tools: [
          { name: "Bash", input_schema: { type: "object" } },
          { type: "web_search_20250305", name: "web_search" },
        ],
        tool_choice: { type: "any", disable_parallel_tool_use: true },
        context_management: {
          edits: [{ type: "clear_thinking_20251015", keep: { type: "thinking_turns", value: 2 } }],
        },
        messages: [
          {
            role: "user",
            content: [
              { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBOR" } },
              { type: "text", text: "what is this?" },
            ],
          },
        ],
      }),
    );
    expect(turn.system).toBe("be brief");
    expect(turn.tools.map((tool) => tool.function.name)).toEqual(["Bash"]);
    expect(turn.droppedTools).toEqual(["web_search_20250305"]);
    expect(turn.toolChoice).toBe("required");
    expect(turn.parallelToolCalls).toBe(false);
    expect(turn.keepReasoningTurns).toBe(2);
    expect(options.cacheControl).toBe(false);
    expect(options.thinking).toBe(false);
    expect(turn.thinking).toBeUndefined();
    expect(turn.items[0]!.content).toEqual([
      { type: "image_url", image_url: { url: "data:image/png;base64,iVBOR" } },
      { type: "text", text: "what is this?" },
    ]);
  });

  it("keeps the thinking the client asked for: a budget when enabled, adaptive, or off", () => {
    const thinkingOf = (thinking: unknown) =>
      parseMessagesRequest(
        MessagesRequestBody.parse({ ...base, thinking, messages: [{ role: "user", content: "hi" }] }),
      ).turn.thinking;
    expect(thinkingOf({ type: "enabled", budget_tokens: 2_048 })).toEqual({
      type: "enabled",
      budgetTokens: 2_048,
    });
    expect(thinkingOf({ type: "adaptive" })).toEqual({ type: "adaptive" });
    expect(thinkingOf({ type: "disabled" })).toEqual({ type: "disabled" });
    // Enabled without a budget, or a type this code does not know: nothing is assumed.
    expect(thinkingOf({ type: "enabled" })).toBeUndefined();
    expect(thinkingOf({ type: "interleaved" })).toBeUndefined();
  });
});
