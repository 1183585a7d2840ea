import type { CompactionEvent, ReasoningDetail, StoredMessage } from "@longrun/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { historyArbitrary } from "../history.test-helper.ts";
import { project } from "../project.ts";
import { buildSummaryMessage } from "../summary-message.ts";
import { createTokenizer } from "../tokenizer.ts";
import { anthropicViolations, inFlightAnswer, toAnthropicRequest } from "./anthropic-request.ts";
import { ANTHROPIC_REASONING_FORMAT, RESPONSES_REASONING_FORMAT } from "./formats.ts";
import { responsesViolations, toResponsesInput } from "./responses-request.ts";

const tokenizer = createTokenizer("o200k_base");
const RUNS = 10_000;
// 10,000 projections per property: seconds of CPU, stretched on a shared 2-core box.
const TIMEOUT = 300_000;

/** Whose reasoning an answer carries (a thread may have changed provider, so several kinds mix). */
type Kind = "none" | "chat" | "responses" | "responses-summary" | "thinking" | "thinking+redacted";
const KINDS: Kind[] = ["none", "chat", "responses", "responses-summary", "thinking", "thinking+redacted"];

function reasoningFor(kind: Kind, seq: number): ReasoningDetail[] | undefined {
  const id = `rs_${seq}`;
  switch (kind) {
    case "none":
      return undefined;
    case "chat":
      return [{ type: "reasoning.encrypted", data: `chat-${seq}` }];
    case "responses":
      return [{ type: "reasoning.encrypted", data: `enc-${seq}==`, id, format: RESPONSES_REASONING_FORMAT }];
    case "responses-summary":
      return [
        { type: "reasoning.summary", summary: `plan ${seq}`, id, format: RESPONSES_REASONING_FORMAT },
        { type: "reasoning.encrypted", data: `enc-${seq}==`, id, format: RESPONSES_REASONING_FORMAT },
      ];
    case "thinking":
      return [
        {
          type: "reasoning.text",
          text: `think ${seq}`,
          signature: `sig-${seq}`,
          format: ANTHROPIC_REASONING_FORMAT,
        },
      ];
    case "thinking+redacted":
      return [
        {
          type: "reasoning.text",
          text: `think ${seq}`,
          signature: `sig-${seq}`,
          format: ANTHROPIC_REASONING_FORMAT,
        },
        { type: "reasoning.encrypted", data: `redacted-${seq}`, format: ANTHROPIC_REASONING_FORMAT },
      ];
    default: {
      const exhaustive: never = kind;
      return exhaustive;
    }
  }
}

interface Scenario {
  facts: StoredMessage[];
  compaction: CompactionEvent | null;
  maxInputTokens: number;
}

function compactionAt(facts: readonly StoredMessage[], cut: number): CompactionEvent {
  const target = facts[cut];
  return {
    id: "c1",
    agentId: "a",
    cutoffMessageId: target?.id ?? null,
    cutoffIndex: target?.seq ?? facts.length,
    summaryMessage: buildSummaryMessage("Task: fix. State: half done.", {
      strategy: "partial",
      summarizedMessages: cut,
    }),
    pinnedMessage: null,
    historyFile: null,
    strategy: "partial",
    trigger: "auto",
    tokensBefore: 0,
    tokensAfter: 0,
    restored: [],
    createdAt: 1_000_000 + cut * 1_000 - 1,
  };
}

/** Generated histories (tool loops, parallel, late, missing results) with every kind of reasoning. */
const scenarioArbitrary: fc.Arbitrary<Scenario> = fc
  .tuple(
    historyArbitrary,
    fc.array(fc.constantFrom(...KINDS), { minLength: 8, maxLength: 8 }),
    fc.option(fc.nat(), { nil: null }),
    fc.integer({ min: 300, max: 6_000 }),
  )
  .map(([history, kinds, cutSeed, maxInputTokens]) => {
    const facts = history.map((fact) => {
      if (fact.role !== "assistant") return fact;
      const { providerState: _state, ...visible } = fact;
      const details = reasoningFor(kinds[fact.seq % kinds.length] ?? "none", fact.seq);
      return details ? { ...visible, providerState: { reasoningDetails: details } } : visible;
    });
    return {
      facts,
      compaction: cutSeed === null ? null : compactionAt(facts, cutSeed % (facts.length + 1)),
      maxInputTokens,
    };
  });

function projected(scenario: Scenario) {
  const last = scenario.facts.at(-1);
  return project({
    systemPrompt: "You are an agent.",
    messages: scenario.facts,
    compaction: scenario.compaction,
    state: null,
    restoredFiles: [],
    profile: { maxInputTokens: scenario.maxInputTokens },
    now: (last?.createdAt ?? 0) + 1_000,
    tokenizer,
  });
}

/** Every reasoning payload the facts hold for `format`, as the provider returned it. */
function issued(facts: readonly StoredMessage[], format: string): Set<string> {
  return new Set(
    facts.flatMap((fact) =>
      (fact.providerState?.reasoningDetails ?? []).flatMap((detail) =>
        detail.format !== format
          ? []
          : detail.type === "reasoning.text"
            ? [detail.signature ?? ""]
            : detail.type === "reasoning.encrypted"
              ? [detail.data]
              : [],
      ),
    ),
  );
}

describe("provider rules over projected histories (property tests)", () => {
  it(
    "OpenAI Responses: no projected input breaks store:false rules; reasoning only byte-exact, in place, never past a compaction",
    () => {
      fc.assert(
        fc.property(scenarioArbitrary, (scenario) => {
          const input = toResponsesInput(projected(scenario).messages);
          expect(responsesViolations(input)).toEqual([]);
          const reasoning = input.flatMap((item) => (item.type === "reasoning" ? [item] : []));
          if (scenario.compaction !== null) expect(reasoning).toEqual([]);
          const known = issued(scenario.facts, RESPONSES_REASONING_FORMAT);
          for (const item of reasoning) expect(known.has(item.encrypted_content)).toBe(true);
          // In place: a reasoning item is followed by its own answer's message or call, never by input.
          input.forEach((item, index) => {
            if (item.type !== "reasoning") return;
            const next = input.slice(index + 1).find((other) => other.type !== "reasoning");
            expect(
              next === undefined ||
                next.type === "function_call" ||
                (next.type === "message" && next.role === "assistant"),
            ).toBe(true);
          });
        }),
        { numRuns: RUNS },
      );
    },
    TIMEOUT,
  );

  it(
    "Anthropic Messages: no projected request breaks its rules, thinking or not; thinking byte-exact, kept for the in-flight loop, never past a compaction",
    () => {
      fc.assert(
        fc.property(scenarioArbitrary, fc.boolean(), (scenario, thinking) => {
          const messages = projected(scenario).messages;
          const request = toAnthropicRequest(messages, { thinking });
          // One more breakpoint sits on the last tool definition.
          expect(anthropicViolations(request, 1)).toEqual([]);
          const blocks = request.messages.flatMap((turn) => turn.content);
          const thoughts = blocks.flatMap((block) =>
            block.type === "thinking"
              ? [block.signature]
              : block.type === "redacted_thinking"
                ? [block.data]
                : [],
          );
          const known = issued(scenario.facts, ANTHROPIC_REASONING_FORMAT);
          for (const payload of thoughts) expect(known.has(payload)).toBe(true);
          const lastAnswer = messages.findLastIndex((message) => message.role === "assistant");
          const inFlight =
            lastAnswer >= 0 && messages.slice(lastAnswer + 1).every((message) => message.role === "tool");
          if (scenario.compaction !== null) {
            // Past a compaction only the in-flight answer's own signed thinking, which no prefix binds.
            const own = new Set(
              (inFlight ? (messages[lastAnswer]?.reasoning_details ?? []) : []).map((detail) =>
                detail.type === "reasoning.encrypted"
                  ? detail.data
                  : detail.type === "reasoning.text"
                    ? detail.signature
                    : undefined,
              ),
            );
            for (const payload of thoughts) expect(own.has(payload)).toBe(true);
          }
          // Thinking is given up only where the in-flight answer arrived without its own.
          const answer = inFlightAnswer(toAnthropicRequest(messages, { thinking: true }).messages);
          const carries =
            answer?.content[0]?.type === "thinking" || answer?.content[0]?.type === "redacted_thinking";
          if (thinking && (answer === undefined || carries)) expect(request.thinking).toBe(true);
          // The in-flight answer's own thinking, when the projection kept it, opens its turn as issued.
          const own = messages[lastAnswer]?.reasoning_details?.find(
            (detail) => detail.format === ANTHROPIC_REASONING_FORMAT,
          );
          if (thinking && inFlight && own?.type === "reasoning.text" && messages.length > lastAnswer + 1) {
            expect(request.thinking).toBe(true);
            const opening = request.messages.at(-2)?.content[0];
            expect(opening?.type === "thinking" && opening.signature).toBe(own.signature);
          }
        }),
        { numRuns: RUNS },
      );
    },
    TIMEOUT,
  );
});
