import { readdir } from "node:fs/promises";
import { createTempWorkspace, startTestSimModel, type TestSimModel } from "@longrun/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createModelClient } from "./compose.ts";
import { endpointModelCatalog, simModelCatalog } from "./model-catalog.ts";

let sim: TestSimModel;
beforeAll(async () => {
  sim = await startTestSimModel();
});
afterAll(async () => {
  await sim?.close();
});

describe("the sim model's catalog", () => {
  it("offers `sim` with its scripts, and sets a new thread up: model string, demo project when not named", async () => {
    const catalog = simModelCatalog();
    const [sim] = await catalog.list();
    expect(sim).toMatchObject({ id: "sim", object: "model", longrun: { default: true } });
    expect(sim?.longrun.simScripts).toContain("approval");
    const fresh = await createTempWorkspace({});
    const named = await createTempWorkspace({});
    try {
      const prepared = await catalog.prepareThread?.({
        model: "sim",
        workspaceDir: fresh.dir,
        namedWorkspace: false,
        maxInputTokens: 8000,
        simSteps: 3,
        simScript: "team",
      });
      expect(prepared).toEqual({ model: "sim:steps=3:script=team:ctx=8000", summarizerModel: undefined });
      expect((await readdir(fresh.dir)).length).toBeGreaterThan(0);
      await catalog.prepareThread?.({ model: "sim", workspaceDir: named.dir, namedWorkspace: true });
      expect(await readdir(named.dir)).toEqual([]);
      expect(
        await catalog.prepareThread?.({ model: "other", workspaceDir: named.dir, namedWorkspace: true }),
      ).toBeNull();
    } finally {
      await fresh.cleanup();
      await named.cleanup();
    }
  });
});

describe("an OpenAI-compatible endpoint's catalog", () => {
  it("lists what the endpoint's GET /models lists, always with the default model", async () => {
    const catalog = endpointModelCatalog({
      client: createModelClient(sim.baseURL, sim.apiKey),
      defaultModel: "gpt-4o-mini",
      configured: [],
    });
    const models = await catalog.list();
    expect(models.map((model) => model.id)).toEqual(["gpt-4o-mini", "sim"]);
    expect(models[0]?.longrun).toEqual({
      maxInputTokens: 111_616,
      default: true,
      upstreamApi: "chat-completions",
    });
    // The endpoint is a sim model server: its `sim` comes with the scripts and the sim's thread setup.
    expect(models[1]?.longrun).toMatchObject({
      default: false,
      simScripts: expect.arrayContaining(["team"]),
    });
    const workspace = await createTempWorkspace({});
    try {
      const prepared = await catalog.prepareThread?.({
        model: "sim",
        workspaceDir: workspace.dir,
        namedWorkspace: false,
        simSteps: 2,
      });
      expect(prepared?.model).toBe("sim:steps=2");
    } finally {
      await workspace.cleanup();
    }
  });

  it("uses LONGRUN_MODELS when given, without asking the endpoint", async () => {
    const catalog = endpointModelCatalog({
      client: createModelClient("http://127.0.0.1:1/v1", "unused"),
      defaultModel: "gpt-4.1",
      configured: ["gpt-4.1", "o3"],
    });
    expect((await catalog.list()).map((model) => model.id)).toEqual(["gpt-4.1", "o3"]);
  });

  it("offers the default only when the endpoint cannot list its models, and says so once", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    try {
      const catalog = endpointModelCatalog({
        client: createModelClient("http://127.0.0.1:1/v1", "unused"),
        defaultModel: "gpt-4o-mini",
        configured: [],
      });
      expect((await catalog.list()).map((model) => model.id)).toEqual(["gpt-4o-mini"]);
      expect((await catalog.list()).map((model) => model.id)).toEqual(["gpt-4o-mini"]);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]?.[0])).toMatch(/set LONGRUN_MODELS/);
    } finally {
      warn.mockRestore();
    }
  });
});

describe("the wire format of each model", () => {
  it("is listed on every entry, as configured (LONGRUN_UPSTREAM_API), chat-completions by default", async () => {
    expect((await simModelCatalog().list())[0]?.longrun.upstreamApi).toBe("chat-completions");
    expect((await simModelCatalog("anthropic-messages").list())[0]?.longrun.upstreamApi).toBe(
      "anthropic-messages",
    );
    const catalog = endpointModelCatalog({
      client: createModelClient(sim.baseURL, sim.apiKey),
      defaultModel: "claude-sonnet-4-5",
      configured: ["claude-sonnet-4-5", "claude-haiku-4-5"],
      upstreamApi: "anthropic-messages",
    });
    const listed = await catalog.list();
    expect(listed.map((entry) => [entry.id, entry.longrun.upstreamApi])).toEqual([
      ["claude-sonnet-4-5", "anthropic-messages"],
      ["claude-haiku-4-5", "anthropic-messages"],
    ]);
  });
});
