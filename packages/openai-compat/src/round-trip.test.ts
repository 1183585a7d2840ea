import type { NewMessage } from "@longrun/protocol";
import { describe, expect, it } from "vitest";
import { createAnswerReader, replayAnswer, type UpstreamChunk } from "./answer.ts";
import { createChatStreamEncoder } from "./chat-output.ts";
import { fingerprint } from "./fingerprint.ts";
import { parseChatRequest } from "./parse-chat-request.ts";
import { parseResponsesRequest } from "./parse-responses-request.ts";
import { createResponsesStreamEncoder, responseBody } from "./responses-output.ts";

/** Upstream chunks of one answer: encrypted reasoning, text, two parallel calls, usage. */
const upstream: UpstreamChunk[] = [
  { id: "u1", choices: [{ delta: { role: "assistant", content: "" } }] },
  { id: "u1", choices: [{ delta: { reasoning_details: [{ type: "reasoning.encrypted", data: "x1" }] } }] },
  { id: "u1", choices: [{ delta: { content: "Step 1: " } }] },
  { id: "u1", choices: [{ delta: { content: "reading." } }] },
  {
    id: "u1",
    choices: [
      {
        delta: {
          tool_calls: [{ index: 0, id: "call_a", function: { name: "exec_command", arguments: "" } }],
        },
      },
    ],
  },
  { id: "u1", choices: [{ delta: { tool_calls: [{ index: 0, function: { arguments: '{"cmd":' } }] } }] },
  { id: "u1", choices: [{ delta: { tool_calls: [{ index: 0, function: { arguments: '"ls"}' } }] } }] },
  {
    id: "u1",
    choices: [
      {
        delta: {
          tool_calls: [
            { index: 1, id: "call_b", function: { name: "apply_patch", arguments: '{"input":"P"}' } },
          ],
        },
      },
    ],
  },
  { id: "u1", choices: [{ delta: {}, finish_reason: "tool_calls" }] },
  { id: "u1", choices: [], usage: { prompt_tokens: 900, completion_tokens: 40, total_tokens: 940 } },
] as UpstreamChunk[];

function readUpstream() {
  const reader = createAnswerReader();
  const events = upstream.flatMap((chunk) => reader.push(chunk));
  return { events, answer: reader.finish() };
}

describe("an answer told to a client comes back as the same fact", () => {
  it("Responses: the output items, echoed as input, fold into the stored assistant fact", () => {
    const { events, answer } = readUpstream();
    expect(answer.message).toMatchObject({
      content: "Step 1: reading.",
      providerState: { reasoningDetails: [{ type: "reasoning.encrypted", data: "x1" }], responseId: "u1" },
      usage: { promptTokens: 900, completionTokens: 40, totalTokens: 940 },
    });
    const routes = {
      exec_command: { kind: "function" as const, name: "exec_command" },
      apply_patch: { kind: "custom" as const, name: "apply_patch" },
    };
    const encoder = createResponsesStreamEncoder({ id: "resp_1", model: "m", createdAt: 1 }, routes);
    const stream = [
      ...encoder.start(),
      ...events.flatMap((event) => encoder.event(event)),
      ...encoder.finish(answer),
    ];
    const done = stream
      .filter((event) => (event as { type: string }).type === "response.output_item.done")
      .map((event) => (event as { item: Record<string, unknown> }).item);
    expect(done.map((item) => item.type)).toEqual([
      "reasoning",
      "message",
      "function_call",
      "custom_tool_call",
    ]);
    expect(done[3]).toMatchObject({ call_id: "call_b", name: "apply_patch", input: "P" });
    const completed = stream.at(-1) as { type: string; response: { usage: unknown; output: unknown[] } };
    expect(completed.type).toBe("response.completed");
    expect(completed.response.usage).toMatchObject({
      input_tokens: 900,
      output_tokens: 40,
      total_tokens: 940,
    });
    expect(completed.response.output).toEqual(done);
    const sequence = stream.map((event) => (event as { sequence_number: number }).sequence_number);
    expect(sequence).toEqual(sequence.map((_, index) => index));

    const echoed = parseResponsesRequest({
      model: "m",
      input: [{ type: "message", role: "user", content: "go" }, ...done],
      tools: [
        { type: "function", name: "exec_command" },
        { type: "custom", name: "apply_patch" },
      ],
    });
    const folded = echoed.items[1] as NewMessage;
    expect(fingerprint(folded)).toBe(fingerprint(answer.message));
    expect(folded.providerState?.reasoningDetails).toEqual(answer.message.providerState?.reasoningDetails);
    expect(responseBody({ id: "resp_1", model: "m", createdAt: 1 }, routes, events, answer)).toEqual(
      completed.response,
    );
  });

  it("Chat: the chunks, read again, give the same fact; a replay tells the same answer", () => {
    const { events, answer } = readUpstream();
    const encoder = createChatStreamEncoder({ id: "c1", model: "m", created: 1 }, { includeUsage: true });
    const chunks = [
      ...encoder.start(),
      ...events.flatMap((event) => encoder.event(event)),
      ...encoder.finish(answer),
    ];
    const again = createAnswerReader();
    for (const chunk of chunks) again.push(chunk as never);
    const reread = again.finish();
    expect(fingerprint(reread.message)).toBe(fingerprint(answer.message));
    expect(reread.usage).toMatchObject(answer.usage ?? {});

    const echoed = parseChatRequest({
      model: "m",
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", content: "Step 1: reading.", tool_calls: answer.message.toolCalls },
      ],
    });
    expect(fingerprint(echoed.items[1]!)).toBe(fingerprint(answer.message));

    const replay = replayAnswer(answer.message);
    const replayed = createAnswerReader();
    const replayEncoder = createChatStreamEncoder(
      { id: "c2", model: "m", created: 1 },
      { includeUsage: true },
    );
    for (const chunk of [
      ...replayEncoder.start(),
      ...replay.events.flatMap((event) => replayEncoder.event(event)),
      ...replayEncoder.finish(replay.answer),
    ])
      replayed.push(chunk as never);
    expect(fingerprint(replayed.finish().message)).toBe(fingerprint(answer.message));
  });
});
