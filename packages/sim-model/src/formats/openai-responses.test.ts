import OpenAI, { APIError } from "openai";
import type { ResponseInputItem } from "openai/resources/responses/responses";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toolDefinitions } from "../fake-workspace.ts";
import { type SimModelServer, startSimModel } from "../server.ts";

let server: SimModelServer;
let client: OpenAI;

beforeAll(async () => {
  server = await startSimModel({ maxInputTokens: 4000 });
  client = new OpenAI({ baseURL: server.baseURL, apiKey: "sim", maxRetries: 0 });
});
afterAll(async () => {
  await server.close();
});

const tools = toolDefinitions(["read_file", "list_dir"]).map((tool) => ({
  type: "function" as const,
  name: tool.function.name,
  description: tool.function.description ?? "",
  parameters: tool.function.parameters as Record<string, unknown>,
  strict: false,
}));
const model = "sim:reasoning=1";
const base = { model, tools, store: false, include: ["reasoning.encrypted_content" as const] };

async function rejection(input: ResponseInputItem[], extra: Record<string, unknown> = {}): Promise<APIError> {
  const error = await client.responses.create({ ...base, input, ...extra }).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(APIError);
  return error as APIError;
}

/** The answer's output items as input again, without their ids (store: false keeps none). */
function replay(output: OpenAI.Responses.ResponseOutputItem[]): ResponseInputItem[] {
  return output.map((item) => {
    const { id: _id, status: _status, ...rest } = item as unknown as Record<string, unknown>;
    return rest as unknown as ResponseInputItem;
  });
}

/** A first answer streamed and assembled by the SDK's stream helper; its input and output. */
async function firstAnswer() {
  const input: ResponseInputItem[] = [
    { role: "system", content: "You explore." },
    { role: "user", content: "Explore the project." },
  ];
  const deltas: string[] = [];
  const stream = client.responses.stream({ ...base, input });
  stream.on("response.output_text.delta", (event) => deltas.push(event.delta));
  const response = await stream.finalResponse();
  return { input, response, deltas };
}

function outputsFor(output: OpenAI.Responses.ResponseOutputItem[]): ResponseInputItem[] {
  return output.flatMap((item) =>
    item.type === "function_call"
      ? [{ type: "function_call_output" as const, call_id: item.call_id, output: "ok" }]
      : [],
  );
}

describe("the sim model on OpenAI Responses", () => {
  it("streams reasoning with encrypted content, text and calls that the SDK's stream helper assembles", async () => {
    const { response, deltas } = await firstAnswer();
    const reasoning = response.output.find((item) => item.type === "reasoning");
    expect(reasoning?.type === "reasoning" && reasoning.encrypted_content).toBeTruthy();
    expect(response.output.some((item) => item.type === "function_call")).toBe(true);
    const text = response.output
      .flatMap((item) => (item.type === "message" ? item.content : []))
      .map((part) => (part.type === "output_text" ? part.text : ""))
      .join("");
    expect(text.length).toBeGreaterThan(0);
    expect(deltas.join("")).toBe(text);
    expect(response.usage?.input_tokens).toBeGreaterThan(0);
  });

  it("accepts the reasoning back inline, in place and byte-exact, and reports cached tokens", async () => {
    const { input, response } = await firstAnswer();
    const next = await client.responses.create({
      ...base,
      input: [...input, ...replay(response.output), ...outputsFor(response.output)],
    });
    expect(next.status).toBe("completed");
    expect(next.usage?.input_tokens_details.cached_tokens).toBeGreaterThan(0);
    expect(server.log.entries.at(-1)?.carriesProviderState).toBe(true);
  });

  it("refuses echoed item ids and item references under store: false (Item '…' not found)", async () => {
    const { input, response } = await firstAnswer();
    const echoed = await rejection([
      ...input,
      ...(response.output as unknown as ResponseInputItem[]),
      ...outputsFor(response.output),
    ]);
    expect(echoed.status).toBe(404);
    expect(echoed.message).toMatch(
      /Item with id '(rs|msg|fc)_[^']+' not found. Items are not persisted when `store` is set to false/,
    );
    const reference = await rejection([...input, { type: "item_reference", id: "rs_abc" }]);
    expect(reference.message).toMatch(/Item with id 'rs_abc' not found/);
  });

  it("refuses previous_response_id when responses are not stored", async () => {
    const { input, response } = await firstAnswer();
    const error = await rejection([...outputsFor(response.output)].slice(0, 0).concat(input), {
      previous_response_id: response.id,
    });
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/Previous response with id 'resp_[^']+' not found/);
  });

  it("refuses reasoning replayed in another chain with invalid_encrypted_content", async () => {
    const { input, response } = await firstAnswer();
    const otherChain = [{ role: "user" as const, content: "A summary of earlier work." }, ...input.slice(1)];
    const error = await rejection([
      ...otherChain,
      ...replay(response.output),
      ...outputsFor(response.output),
    ]);
    expect(error.status).toBe(400);
    expect(error.code).toBe("invalid_encrypted_content");
  });

  it("refuses a function call without its output and an output without its call", async () => {
    const { input, response } = await firstAnswer();
    const missing = await rejection([...input, ...replay(response.output)]);
    expect(missing.message).toMatch(/No tool output found for function call/);
    const orphan = await rejection([
      ...input,
      { type: "function_call_output", call_id: "call_x", output: "ok" },
    ]);
    expect(orphan.message).toMatch(/No tool call found for function call output with call_id call_x/);
  });

  it("answers an over-long input with context_length_exceeded", async () => {
    const error = await rejection([{ role: "user", content: "word ".repeat(6000) }]);
    expect(error.status).toBe(400);
    expect(error.code).toBe("context_length_exceeded");
    expect(server.log.entries.at(-1)?.api).toBe("responses");
  });
});
