import { simModelName } from "@longrun/sim-model";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestSimModel, type TestSimModel } from "./sim-model.ts";

let sim: TestSimModel;

beforeAll(async () => {
  sim = await startTestSimModel({ maxInputTokens: 8000 });
});
afterAll(async () => {
  await sim.close();
});

describe("startTestSimModel", () => {
  it("serves Chat Completions on a free port with the given config", async () => {
    expect(sim.baseURL).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(sim.server.config.maxInputTokens).toBe(8000);
    const response = await fetch(`${sim.baseURL}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${sim.apiKey}` },
      body: JSON.stringify({
        model: simModelName({ steps: 1 }),
        messages: [{ role: "user", content: "hi" }],
      }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { choices: Array<{ finish_reason: string }> };
    expect(body.choices[0]?.finish_reason).toBe("stop");
    expect(sim.server.log.entries).toHaveLength(1);
    expect(sim.clientOptions).toEqual({ baseURL: sim.baseURL, apiKey: sim.apiKey, maxRetries: 0 });
  });
});
