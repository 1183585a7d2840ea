import type { ClientTurn } from "@longrun/openai-compat";
import { describe, expect, it } from "vitest";
import { carriedControls } from "./upstream-controls.ts";

function turn(overrides: Partial<ClientTurn>): ClientTurn {
  return {
    api: "chat",
    model: "m",
    system: "",
    items: [],
    tools: [],
    toolRoutes: {},
    droppedTools: [],
    sampling: {},
    stream: true,
    includeUsage: true,
    ...overrides,
  };
}

describe("carriedControls", () => {
  it("carries an OpenAI client's reasoning effort to OpenAI upstreams and drops it before Anthropic", () => {
    const chat = turn({ sampling: { reasoning_effort: "high", temperature: 0.2, stop: "END" } });
    expect(carriedControls(chat, "responses", 4_000)).toEqual({
      controls: { reasoningEffort: "high", temperature: 0.2, stop: ["END"] },
    });
    // Over Anthropic: no effort, no budget derived from it: the configured budget, as for longrun's agents.
    expect(carriedControls(chat, "anthropic-messages", 4_000)).toEqual({
      controls: { temperature: 0.2, stop: ["END"] },
      thinkingBudgetTokens: 4_000,
    });
    expect(carriedControls(chat, "anthropic-messages", undefined)).toEqual({
      controls: { temperature: 0.2, stop: ["END"] },
    });
  });

  it("carries an Anthropic client's thinking to an Anthropic upstream and drops it before OpenAI", () => {
    const enabled = turn({ api: "messages", thinking: { type: "enabled", budgetTokens: 2_048 } });
    expect(carriedControls(enabled, "anthropic-messages", 1_024).thinkingBudgetTokens).toBe(2_048);
    expect(carriedControls(enabled, "responses", 1_024)).toEqual({ controls: {} });
    expect(carriedControls(enabled, "chat-completions", 1_024)).toEqual({ controls: {} });
    const adaptive = turn({ api: "messages", thinking: { type: "adaptive" } });
    expect(carriedControls(adaptive, "anthropic-messages", 1_024).thinkingBudgetTokens).toBe(1_024);
    // The client did not ask for thinking (or turned it off): none, whatever is configured.
    for (const thinking of [undefined, { type: "disabled" as const }])
      expect(
        carriedControls(turn({ api: "messages", thinking }), "anthropic-messages", 1_024)
          .thinkingBudgetTokens,
      ).toBeUndefined();
  });

  it("passes tool choice and parallel calls on for each format's caller to map", () => {
    const choice = { type: "function", function: { name: "Bash" } };
    expect(
      carriedControls(
        turn({ toolChoice: choice, parallelToolCalls: false }),
        "anthropic-messages",
        undefined,
      ),
    ).toEqual({ controls: { toolChoice: choice, parallelToolCalls: false } });
  });
});
