import { describe, expect, it } from "vitest";
import { type AnswerEvent, replayAnswer } from "../answer.ts";
import { decodeProviderState } from "../encrypted-state.ts";
import { createMessagesStreamEncoder } from "./messages-output.ts";

const identity = { id: "msg_1", model: "sim", thinking: true };
const reasoning = { type: "reasoning.encrypted" as const, data: "sim:opaque", id: "rs_1" };
const events: AnswerEvent[] = [
  { type: "reasoning", state: { reasoningDetails: [reasoning] } },
  { type: "text", delta: "Step 1: " },
  { type: "text", delta: "listing." },
  { type: "tool_call", index: 0, id: "call_1", name: "Bash" },
  { type: "tool_arguments", index: 0, delta: '{"command":' },
  { type: "tool_arguments", index: 0, delta: '"ls"}' },
];
const answer = {
  message: {
    role: "assistant" as const,
    content: "Step 1: listing.",
    toolCalls: [
      { id: "call_1", type: "function" as const, function: { name: "Bash", arguments: '{"command":"ls"}' } },
    ],
    providerState: { reasoningDetails: [reasoning], responseId: "chatcmpl-sim-1" },
  },
  usage: { promptTokens: 1_000, completionTokens: 20, totalTokens: 1_020, cachedTokens: 600 },
  finishReason: "tool_calls" as const,
};

function stream(thinking = true) {
  const encoder = createMessagesStreamEncoder({ ...identity, thinking });
  return [
    ...encoder.start(),
    ...events.flatMap((event) => encoder.event(event)),
    ...encoder.finish(answer, { cache: { readTokens: 600, writeTokens: 300 } }),
  ] as Array<Record<string, unknown> & { type: string }>;
}

describe("createMessagesStreamEncoder", () => {
  it("tells the answer in the API's event sequence: thinking, text, tool_use, then message_delta and message_stop", () => {
    const frames = stream();
    expect(
      frames.map((frame) => `${frame.type}${frame.index !== undefined ? `:${frame.index}` : ""}`),
    ).toEqual([
      "message_start",
      "ping",
      "content_block_start:0",
      "content_block_stop:0",
      "content_block_start:1",
      "content_block_delta:1",
      "content_block_delta:1",
      "content_block_stop:1",
      "content_block_start:2",
      "content_block_delta:2",
      "content_block_delta:2",
      "content_block_stop:2",
      "message_delta",
      "message_stop",
    ]);
    expect(frames[2]!.content_block).toMatchObject({ type: "redacted_thinking" });
    expect(frames[8]!.content_block).toEqual({ type: "tool_use", id: "call_1", name: "Bash", input: {} });
    expect(frames[9]!.delta).toEqual({ type: "input_json_delta", partial_json: '{"command":' });
    expect(frames[12]).toMatchObject({
      delta: { stop_reason: "tool_use", stop_sequence: null },
      usage: {
        input_tokens: 100,
        output_tokens: 20,
        cache_read_input_tokens: 600,
        cache_creation_input_tokens: 300,
      },
    });
  });

  it("signs the reasoning with its provider state, and a retried answer told from the log signs it identically", () => {
    const live = stream()[2]!.content_block as { data: string };
    expect(decodeProviderState(live.data)).toEqual({ reasoningDetails: [reasoning] });
    const replay = replayAnswer({ ...answer.message });
    const encoder = createMessagesStreamEncoder(identity);
    encoder.start();
    for (const event of replay.events) encoder.event(event);
    const body = encoder.body(replay.answer);
    expect(body.content[0]).toEqual({ type: "redacted_thinking", data: live.data });
  });

  it("leaves reasoning out when the request did not enable thinking, and tells readable reasoning as a thinking block", () => {
    expect(stream(false).some((frame) => JSON.stringify(frame).includes("thinking"))).toBe(false);
    const encoder = createMessagesStreamEncoder(identity);
    encoder.start();
    encoder.event({ type: "reasoning", state: { reasoningContent: "first I look" } });
    const frames = encoder.event({ type: "text", delta: "hi" }) as Array<Record<string, unknown>>;
    expect(frames.slice(0, 4).map((frame) => (frame.delta as { type?: string })?.type ?? frame.type)).toEqual(
      ["content_block_start", "thinking_delta", "signature_delta", "content_block_stop"],
    );
    expect(frames[1]!.delta).toEqual({ type: "thinking_delta", thinking: "first I look" });
  });

  it("builds the non-streamed body from the same blocks, with usage adding up to the prompt sent", () => {
    const encoder = createMessagesStreamEncoder({ ...identity, thinking: false });
    encoder.start();
    for (const event of events) encoder.event(event);
    const body = encoder.body(answer, {
      appliedEdits: [
        { type: "clear_thinking_20251015", cleared_thinking_turns: 1, cleared_input_tokens: 40 },
      ],
    });
    expect(body).toMatchObject({
      id: "msg_1",
      type: "message",
      role: "assistant",
      stop_reason: "tool_use",
      content: [
        { type: "text", text: "Step 1: listing." },
        { type: "tool_use", id: "call_1", name: "Bash", input: { command: "ls" } },
      ],
      usage: {
        input_tokens: 1_000,
        output_tokens: 20,
        cache_read_input_tokens: 0,
        cache_creation_input_tokens: 0,
      },
      context_management: { applied_edits: [{ cleared_thinking_turns: 1 }] },
    });
  });
});
