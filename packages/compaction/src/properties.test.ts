import type { ChatMessage, CompactionEvent, ModelProfile, StoredMessage } from "@longrun/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { historyArbitrary } from "./history.test-helper.ts";
import { toolPairViolation } from "./invariants.test-helper.ts";
import { compactionFields, planCompaction } from "./plan-compaction.ts";
import { type ProjectionInput, project } from "./project.ts";
import { sanitizeMessage } from "./sanitize.ts";
import { buildSummaryMessage } from "./summary-message.ts";
import { toChatMessage } from "./to-chat.ts";
import { createTokenizer } from "./tokenizer.ts";
import { verifyProjection } from "./verify.ts";

const tokenizer = createTokenizer("o200k_base");
const RUNS = 10_000;
// Each property runs 10,000 histories; CPU time is a few seconds, but a shared 2-core box can stretch it.
const TIMEOUT = 300_000;

const profileArbitrary: fc.Arbitrary<Partial<ModelProfile>> = fc.oneof(
  fc.record({ maxInputTokens: fc.integer({ min: 60, max: 4_000 }) }),
  fc.record({
    fallbackTriggerTokens: fc.integer({ min: 50, max: 3_000 }),
    fallbackKeepMessages: fc.integer({ min: 1, max: 8 }),
  }),
);

interface Scenario {
  facts: StoredMessage[];
  compaction: CompactionEvent | null;
  profile: Partial<ModelProfile>;
  idle: boolean;
}

/** A compaction whose boundary is facts[cut] (as a runner would have persisted it). */
function compactionAt(facts: readonly StoredMessage[], cut: number): CompactionEvent {
  const target = facts[cut];
  const before = facts.slice(0, cut);
  const lastUser = [...before].reverse().find((fact) => fact.role === "user");
  const hasUserAfter = facts.slice(cut).some((fact) => fact.role === "user");
  return {
    id: "c1",
    agentId: "a",
    cutoffMessageId: target?.id ?? null,
    cutoffIndex: target?.seq ?? facts.length,
    summaryMessage: {
      ...buildSummaryMessage("Task: fix. State: half done.", {
        strategy: "partial",
        summarizedMessages: cut,
      }),
      reasoning_details: [{ type: "reasoning.encrypted", data: "c3VtbWFyeQ==" }],
    },
    pinnedMessage: lastUser && !hasUserAfter ? sanitizeMessage(toChatMessage(lastUser)) : null,
    historyFile: null,
    strategy: "partial",
    trigger: "auto",
    tokensBefore: 0,
    tokensAfter: 0,
    restored: [],
    createdAt: 1_000_000 + cut * 1_000 - 1,
  };
}

const scenarioArbitrary: fc.Arbitrary<Scenario> = fc
  .tuple(historyArbitrary, fc.option(fc.nat(), { nil: null }), profileArbitrary, fc.boolean())
  .map(([facts, cutSeed, profile, idle]) => ({
    facts,
    compaction: cutSeed === null ? null : compactionAt(facts, cutSeed % (facts.length + 1)),
    profile,
    idle,
  }));

function inputOf(scenario: Scenario): ProjectionInput {
  const last = scenario.facts[scenario.facts.length - 1];
  return {
    systemPrompt: "You are an agent.",
    messages: scenario.facts,
    compaction: scenario.compaction,
    state: { plan: "1. read 2. fix", todos: [{ content: "fix", status: "in_progress" }] },
    restoredFiles: [{ path: "src/a.ts", content: "export const a = 1;\n", readAt: 5 }],
    profile: scenario.profile,
    now: (last?.createdAt ?? 0) + (scenario.idle ? 7 * 3_600_000 : 1_000),
    tokenizer,
  };
}

/** First result fact answering `callId` after position `after` in `facts`. */
function firstResult(
  facts: readonly StoredMessage[],
  callId: string,
  after: number,
): StoredMessage | undefined {
  return facts.find((fact, index) => index > after && fact.role === "tool" && fact.toolCallId === callId);
}

function hasPrivateState(message: ChatMessage): boolean {
  return message.reasoning_details !== undefined || message.reasoning_content !== undefined;
}

describe("projection invariants (property tests)", () => {
  it(
    "I1: every call is followed by exactly one result per id; no orphans, no duplicates",
    () => {
      fc.assert(
        fc.property(scenarioArbitrary, (scenario) => {
          const projection = project(inputOf(scenario));
          expect(toolPairViolation(projection.messages)).toBeNull();
          expect(projection.marks).toHaveLength(projection.messages.length);
        }),
        { numRuns: RUNS },
      );
    },
    TIMEOUT,
  );

  it(
    "I2: a call without a result gets an explicit cancelled result, never a success",
    () => {
      fc.assert(
        fc.property(scenarioArbitrary, (scenario) => {
          const projection = project(inputOf(scenario));
          const raw = scenario.facts.slice(projection.boundary.startIndex);
          const byId = new Map(projection.messages.map((message, index) => [message, index]));
          projection.messages.forEach((message, index) => {
            if (projection.marks[index] === "repaired") {
              expect(message.role).toBe("tool");
              expect(String(message.content)).toMatch(/cancelled.*outcome is unknown/);
            }
            for (const call of message.tool_calls ?? []) {
              const callAt = raw.findIndex((fact) =>
                fact.toolCalls?.some((candidate) => candidate.id === call.id),
              );
              if (firstResult(raw, call.id, callAt) !== undefined) continue;
              const answer = projection.messages.find(
                (other) => other.role === "tool" && other.tool_call_id === call.id,
              );
              expect(answer && projection.marks[byId.get(answer) ?? -1]).toBe("repaired");
            }
          });
        }),
        { numRuns: RUNS },
      );
    },
    TIMEOUT,
  );

  it(
    "I3: the latest user message and the active tool loop reach the model verbatim",
    () => {
      fc.assert(
        fc.property(scenarioArbitrary, (scenario) => {
          const projection = project(inputOf(scenario));
          const raw = scenario.facts.slice(projection.boundary.startIndex);
          const at = (id: string): ChatMessage | undefined =>
            projection.messages[projection.sourceIds.indexOf(id)];
          const lastUser = [...raw].reverse().find((fact) => fact.role === "user");
          if (lastUser) expect(at(lastUser.id)?.content).toEqual(lastUser.content);
          else if (scenario.compaction?.pinnedMessage) {
            const pinned = projection.messages[projection.marks.indexOf("pinned")];
            expect(pinned?.content).toEqual(scenario.compaction.pinnedMessage.content);
          }
          const loopAt = raw.findLastIndex(
            (fact) => fact.role === "assistant" && (fact.toolCalls?.length ?? 0) > 0,
          );
          const loop = raw[loopAt];
          const callIds = scenario.facts.flatMap((fact) => fact.toolCalls?.map((call) => call.id) ?? []);
          if (!loop || new Set(callIds).size !== callIds.length) return;
          const sent = at(loop.id);
          expect(sent?.tool_calls).toEqual(loop.toolCalls);
          expect(sent?.content).toEqual(loop.content);
          for (const call of loop.toolCalls ?? []) {
            const result = firstResult(raw, call.id, loopAt);
            if (result) expect(at(result.id)?.content).toEqual(result.content);
          }
        }),
        { numRuns: RUNS },
      );
    },
    TIMEOUT,
  );

  it(
    "I4: the boundary resolves by id through reindexing and never opens on a tool result",
    () => {
      fc.assert(
        fc.property(
          historyArbitrary,
          fc.nat(),
          fc.nat({ max: 50 }),
          fc.boolean(),
          (facts, cutSeed, shift, dropAnchor) => {
            if (facts.length === 0) return;
            const cut = cutSeed % facts.length;
            const compaction = compactionAt(facts, cut);
            // Reindex: seqs shifted (a rebuilt log) and the store returns facts from a bit before the cut.
            const from = Math.max(0, cut - (shift % 3));
            let supplied = facts.slice(from).map((fact) => ({ ...fact, seq: fact.seq + shift }));
            if (dropAnchor) supplied = supplied.filter((fact) => fact.id !== compaction.cutoffMessageId);
            const projection = project({
              ...inputOf({ facts, compaction, profile: {}, idle: false }),
              messages: supplied,
            });
            const firstRaw = projection.marks.findIndex((mark) => mark === "raw" || mark === "repaired");
            if (firstRaw >= 0) expect(projection.messages[firstRaw]?.role).not.toBe("tool");
            if (dropAnchor) {
              expect(projection.boundary.resolvedBy).toBe("index");
              return;
            }
            expect(projection.boundary.resolvedBy).toBe("id");
            const expected = facts.slice(cut).find((fact) => fact.role !== "tool");
            expect(projection.boundary.firstMessageId).toBe(expected?.id ?? null);
            if (expected) expect(projection.sourceIds[firstRaw]).toBe(expected.id);
          },
        ),
        { numRuns: RUNS },
      );
    },
    TIMEOUT,
  );

  it(
    "I5: no provider state in summary requests or in projections after a compaction",
    () => {
      fc.assert(
        fc.property(scenarioArbitrary, (scenario) => {
          const input = inputOf(scenario);
          const projection = project(input);
          for (const message of projection.messages) {
            expect(message.reasoning_content).toBeUndefined();
            if (scenario.compaction) expect(hasPrivateState(message)).toBe(false);
          }
          const plan = planCompaction(input, { timeZone: "Europe/Berlin" });
          if (!plan) return;
          if (plan.request.form === "standalone") {
            expect(plan.request).not.toHaveProperty("tools");
            expect(String(plan.request.messages[0]?.content)).toMatch(/^You are summarizing/);
          } else {
            // The agent's own request continued: its tools stay for the cache and cannot be called.
            if (plan.request.tools) expect(plan.request.tool_choice).toBe("none");
            expect(String(plan.request.messages.at(-1)?.content)).toMatch(/^\[Context compaction\]/);
          }
          const wire = JSON.stringify(plan.request.messages);
          expect(wire).not.toContain("ZW5jcnlwdGVk");
          expect(wire).not.toContain("private thoughts");
          expect(wire).not.toContain("c3VtbWFyeQ==");
          // Second projection, after this compaction, carries no provider state either (I5) and keeps I1.
          const event: CompactionEvent = {
            id: "c2",
            agentId: "a",
            historyFile: null,
            trigger: "auto",
            tokensBefore: projection.tokens,
            tokensAfter: 0,
            restored: [],
            createdAt: input.now,
            ...compactionFields(plan, "Task: continue."),
          };
          const after = project({ ...input, compaction: event });
          expect(after.messages.some(hasPrivateState)).toBe(false);
          expect(toolPairViolation(after.messages)).toBeNull();
          // I3 across the compaction: the latest user message survives verbatim (raw tail or pinned).
          const raw = scenario.facts.slice(projection.boundary.startIndex);
          const latestUser = raw.findLast((fact) => fact.role === "user");
          const expected = latestUser ? latestUser.content : scenario.compaction?.pinnedMessage?.content;
          if (expected !== undefined) {
            const users = after.messages.filter(
              (message, index) => message.role === "user" && after.marks[index] !== "summary",
            );
            expect(users.map((message) => message.content)).toContainEqual(expected);
          }
        }),
        { numRuns: RUNS },
      );
    },
    TIMEOUT,
  );

  it(
    "I6: verifyProjection says exhausted iff over the limit",
    () => {
      fc.assert(
        fc.property(scenarioArbitrary, (scenario) => {
          const projection = project(inputOf(scenario));
          const verdict = verifyProjection(projection);
          expect(verdict.ok).toBe(projection.tokens <= projection.limitTokens);
          if (!verdict.ok) expect(verdict.status).toBe("context_exhausted");
        }),
        { numRuns: RUNS },
      );
    },
    TIMEOUT,
  );
});
