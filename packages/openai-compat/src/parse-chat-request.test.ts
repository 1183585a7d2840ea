import { describe, expect, it } from "vitest";
import { ChatRequestBody, parseChatRequest } from "./parse-chat-request.ts";

describe("parseChatRequest", () => {
  it("reads an opencode-shaped request: system text, facts, tools, usage option, max_tokens", () => {
    const turn = parseChatRequest(
      ChatRequestBody.parse({
        model: "sim:script=opencode",
        max_tokens: 2048,
        messages: [
          { role: "system", content: "You are opencode." },
          { role: "user", content: "Write hello.txt" },
          {
            role: "assistant",
            content: "Writing.",
            tool_calls: [
              { id: "call_1", type: "function", function: { name: "write", arguments: '{"a":1}' } },
            ],
          },
          { role: "tool", tool_call_id: "call_1", content: "Wrote file successfully." },
          { role: "user", content: [{ type: "text", text: "thanks" }] },
        ],
        tools: [
          {
            type: "function",
            function: { name: "write", description: "Write a file", parameters: { type: "object" } },
          },
        ],
        tool_choice: "auto",
        stream: true,
        stream_options: { include_usage: true },
        temperature: 0.2,
      }),
    );
    expect(turn.api).toBe("chat");
    expect(turn.system).toBe("You are opencode.");
    expect(turn.items).toEqual([
      { role: "user", content: "Write hello.txt" },
      {
        role: "assistant",
        content: "Writing.",
        toolCalls: [{ id: "call_1", type: "function", function: { name: "write", arguments: '{"a":1}' } }],
      },
      { role: "tool", content: "Wrote file successfully.", toolCallId: "call_1" },
      { role: "user", content: "thanks" },
    ]);
    expect(turn.tools[0]?.function.name).toBe("write");
    expect(turn.includeUsage).toBe(true);
    expect(turn.maxOutputTokens).toBe(2048);
    expect(turn.sampling).toEqual({ temperature: 0.2, max_tokens: 2048 });
  });

  it("keeps the reasoning items of known shapes and drops the others (an unknown or broken item cannot be counted)", () => {
    const turn = parseChatRequest(
      ChatRequestBody.parse({
        model: "m",
        messages: [
          { role: "user", content: "go" },
          {
            role: "assistant",
            content: "done",
            reasoning_details: [
              { type: "reasoning.encrypted", data: "QUJD" },
              { type: "x" },
              { type: "reasoning.text" },
              { type: "reasoning.text", text: "thinking" },
            ],
          },
          { role: "assistant", content: "again", reasoning_details: [{ type: "%2e%2e%2f" }] },
        ],
      }),
    );
    expect(turn.items[1]?.providerState?.reasoningDetails).toEqual([
      { type: "reasoning.encrypted", data: "QUJD" },
      { type: "reasoning.text", text: "thinking" },
    ]);
    expect(turn.items[2]?.providerState).toBeUndefined();
  });

  it("keeps images as parts and drops tools that are not functions", () => {
    const turn = parseChatRequest(
      ChatRequestBody.parse({
        model: "m",
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "look" },
              { type: "image_url", image_url: { url: "data:image/png;base64,AAA" } },
            ],
          },
        ],
        tools: [{ type: "web_search_preview" }],
      }),
    );
    expect(turn.items[0]?.content).toEqual([
      { type: "text", text: "look" },
      { type: "image_url", image_url: { url: "data:image/png;base64,AAA" } },
    ]);
    expect(turn.tools).toEqual([]);
    expect(turn.droppedTools).toEqual(["web_search_preview"]);
  });
});
