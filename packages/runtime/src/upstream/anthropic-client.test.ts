import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { anthropicCaller } from "./anthropic-caller.ts";

describe("the Anthropic client of a call", () => {
  const openai = new OpenAI({ baseURL: "http://127.0.0.1:9/v1", apiKey: "sim-key" });

  it("is built on the configured endpoint, once per endpoint", async () => {
    const { anthropicClientFor } = await anthropicCaller();
    const endpoint = { baseURL: "https://anthropic.example", apiKey: "configured-key" };
    const client = anthropicClientFor(openai, endpoint);
    expect(client.baseURL).toBe("https://anthropic.example");
    expect(client.apiKey).toBe("configured-key");
    expect(client.maxRetries).toBe(0);
    expect(anthropicClientFor(openai, endpoint)).toBe(client);
    // Without a base URL: Anthropic's own API.
    expect(anthropicClientFor(openai, { apiKey: "configured-key" }).baseURL).toBe(
      "https://api.anthropic.com",
    );
  });

  it("without one, is built on the model endpoint's origin with its key", async () => {
    const { anthropicClientFor } = await anthropicCaller();
    const client = anthropicClientFor(openai, undefined);
    expect(client.baseURL).toBe("http://127.0.0.1:9");
    expect(client.apiKey).toBe("sim-key");
    expect(anthropicClientFor(openai, undefined)).toBe(client);
  });
});
