import type { ModelProfile, StoredMessage } from "@longrun/protocol";
import { type Projection, type ProjectionInput, project } from "./project.ts";
import type { ProjectionMemo } from "./stable.ts";
import { createTokenizer } from "./tokenizer.ts";

export const tokenizer = createTokenizer("o200k_base");

/** A history, a profile and a batch threshold, walked call point by call point. */
export interface Scenario {
  facts: StoredMessage[];
  profile: Partial<ModelProfile>;
  rewriteMinTokens: number | undefined;
}

/** The projection input at call point `end` (the facts before it), never idle. */
export function inputAt(scenario: Scenario, end: number, memo: ProjectionMemo | null): ProjectionInput {
  const messages = scenario.facts.slice(0, end);
  return {
    systemPrompt: "You are an agent.",
    messages,
    compaction: null,
    state: null,
    profile: scenario.profile,
    // Never idle: an idle gap clears results on top of the stable form (the cache is gone by then).
    now: (messages.at(-1)?.createdAt ?? 0) + 1_000,
    tokenizer,
    memo,
    ...(scenario.rewriteMinTokens === undefined ? {} : { rewriteMinTokens: scenario.rewriteMinTokens }),
  };
}

/** Every call point of the history (before each assistant fact, and after the last fact). */
export function callPoints(facts: readonly StoredMessage[]): number[] {
  const points = facts.flatMap((fact, index) => (fact.role === "assistant" && index > 0 ? [index] : []));
  if (points.at(-1) !== facts.length) points.push(facts.length);
  return points;
}

/** Walks the call points carrying the memo, as the runtime and the replay do. */
export function walk(scenario: Scenario): { end: number; projection: Projection }[] {
  let memo: ProjectionMemo | null = null;
  return callPoints(scenario.facts).map((end) => {
    const projection = project(inputAt(scenario, end, memo));
    memo = projection.memo ?? null;
    return { end, projection };
  });
}

/** The request's messages as the cache compares them. */
export const wire = (projection: Projection) => projection.messages.map((message) => JSON.stringify(message));

/** Builds a history fact by fact: `add` one message, `call` an assistant tool call with its result. */
export function factLog() {
  const facts: StoredMessage[] = [];
  const add = (partial: Omit<StoredMessage, "id" | "agentId" | "seq" | "tokenCount" | "createdAt">) => {
    const seq = facts.length;
    facts.push({ ...partial, id: `m${seq}`, agentId: "a", seq, tokenCount: 0, createdAt: 1_000 + seq });
  };
  const call = (id: string, name: string, args: object, result: string) => {
    add({
      role: "assistant",
      content: null,
      toolCalls: [{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }],
    });
    add({ role: "tool", toolCallId: id, toolStatus: "ok", content: result });
  };
  return { facts, add, call };
}
