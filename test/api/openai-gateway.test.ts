import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
// Test-only: the real composition of embedded mode (a package dependency would be a cycle cli → server).
import { type EmbeddedInstance, loadConfig, startEmbedded } from "@longrun/cli";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let dataDir: string;
let instance: EmbeddedInstance;
let openai: OpenAI;

const tools = [{ type: "function" as const, function: { name: "glob", parameters: { type: "object" } } }];

async function call(path: string, body: unknown, token: string | null = instance.token) {
  const response = await fetch(`${instance.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "longrun-openai-gateway-"));
  instance = await startEmbedded(loadConfig({ PORT: "0", LONGRUN_DATA_DIR: dataDir }));
  openai = new OpenAI({ baseURL: `${instance.url}/v1`, apiKey: instance.token, maxRetries: 0 });
});
afterAll(async () => {
  await instance?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe("OpenAI-compatible gateway routes", () => {
  it("lists models in the OpenAI list shape, behind the bearer token", async () => {
    const models = await openai.models.list();
    expect(models.data[0]).toMatchObject({ id: "sim", object: "model", owned_by: "longrun" });
    const anonymous = await fetch(`${instance.url}/v1/models`);
    expect(anonymous.status).toBe(401);
  });

  it("answers Chat Completions, streamed with usage and as one body, through the official client", async () => {
    const messages = [{ role: "user" as const, content: "Explore" }];
    const stream = await openai.chat.completions.create({
      model: "sim:steps=3",
      messages,
      tools,
      stream: true,
      stream_options: { include_usage: true },
    });
    let toolName = "";
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      toolName += chunk.choices[0]?.delta.tool_calls?.[0]?.function?.name ?? "";
      if (chunk.usage) usage = chunk.usage;
    }
    expect(toolName).toBe("glob");
    expect(usage?.prompt_tokens).toBeGreaterThan(0);

    const whole = await openai.chat.completions.create({
      model: "sim:steps=3",
      messages: [{ role: "user", content: "Another conversation" }],
      tools,
    });
    expect(whole.object).toBe("chat.completion");
    expect(whole.choices[0]?.finish_reason).toBe("tool_calls");
    expect(whole.usage?.total_tokens).toBeGreaterThan(0);
  });

  it("answers the Responses API streamed, and marks the conversation's thread as a gateway thread", async () => {
    const stream = await openai.responses.create({
      model: "sim:steps=3",
      input: "Explore the project",
      tools: [{ type: "function", name: "glob", parameters: { type: "object" }, strict: false }],
      prompt_cache_key: "route-test",
      stream: true,
    });
    const types: string[] = [];
    let completed: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === "response.completed") completed = event.response;
    }
    expect(types[0]).toBe("response.created");
    expect(types).toContain("response.function_call_arguments.delta");
    expect(completed?.output.some((item) => item.type === "function_call")).toBe(true);
    expect(completed?.usage?.input_tokens).toBeGreaterThan(0);

    const threads = (await (
      await fetch(`${instance.url}/v1/threads`, { headers: { authorization: `Bearer ${instance.token}` } })
    ).json()) as {
      threads: Array<{ modelProfile: { gateway?: { key: string; api: string } } }>;
    };
    expect(threads.threads.map((thread) => thread.modelProfile.gateway)).toContainEqual(
      expect.objectContaining({ key: "cache:route-test|agent", api: "responses" }),
    );
  });

  it("answers errors in the OpenAI shape: bad body, unsupported previous_response_id, upstream refusal", async () => {
    const bad = await call("/v1/chat/completions", { model: "sim", messages: [] });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatchObject({ type: "invalid_request_error", code: "invalid_request" });

    const chained = await call("/v1/responses", {
      model: "sim",
      input: "hi",
      previous_response_id: "resp_1",
    });
    expect(chained.status).toBe(400);
    expect(chained.json.error).toMatchObject({ code: "unsupported_parameter" });

    const unknown = await call("/v1/chat/completions", {
      model: "gpt-unknown",
      messages: [{ role: "user", content: "hi" }],
    });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error).toMatchObject({ code: "model_not_found" });

    const anonymous = await call("/v1/responses", { model: "sim", input: "hi" }, null);
    expect(anonymous.status).toBe(401);
  });

  it("stores x-longrun-compaction: off on the conversation's thread", async () => {
    const response = await fetch(`${instance.url}/v1/chat/completions`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${instance.token}`,
        "x-longrun-compaction": "off",
        "x-longrun-conversation": "raw",
      },
      body: JSON.stringify({ model: "sim:steps=3", messages: [{ role: "user", content: "hi" }], tools }),
    });
    expect(response.status).toBe(200);
    const list = (await (
      await fetch(`${instance.url}/v1/threads`, { headers: { authorization: `Bearer ${instance.token}` } })
    ).json()) as {
      threads: Array<{ modelProfile: { gateway?: { key: string; compaction: string } } }>;
    };
    const raw = list.threads.find((thread) => thread.modelProfile.gateway?.key === "conversation:raw");
    expect(raw?.modelProfile.gateway?.compaction).toBe("off");
  });
});
