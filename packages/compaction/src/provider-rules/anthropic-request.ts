import type { ChatMessage } from "@longrun/protocol";
import { SUMMARY_HEADER } from "../summary-message.ts";
import { ANTHROPIC_REASONING_FORMAT, imagesOf, reasoningOf, textOf } from "./formats.ts";

/** A cache breakpoint (Anthropic allows at most four per request). */
export interface CacheControl {
  type: "ephemeral";
}

/** Content blocks of an Anthropic Messages request, as longrun sends them. */
export type AnthropicBlock =
  | { type: "text"; text: string; cache_control?: CacheControl }
  | {
      type: "image";
      source: { type: "url"; url: string } | { type: "base64"; media_type: string; data: string };
    }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string }
  | { type: "tool_use"; id: string; name: string; input: unknown }
  | { type: "tool_result"; tool_use_id: string; content: string; is_error?: boolean };

export interface AnthropicTurn {
  role: "user" | "assistant";
  content: AnthropicBlock[];
}

/** The parts of an Anthropic Messages request the projection decides. */
export interface AnthropicRequestParts {
  system: Array<{ type: "text"; text: string; cache_control?: CacheControl }>;
  messages: AnthropicTurn[];
  /**
   * Whether this request may ask for thinking: false when the in-flight tool loop's answer has no
   * thinking of its own (stripped at a compaction, or answered without thinking): the provider demands
   * that answer start with its thinking when thinking is on.
   */
  thinking: boolean;
}

/** At most this many cache breakpoints in one request (the provider's limit). */
export const ANTHROPIC_MAX_BREAKPOINTS = 4;
const EMPTY_ANSWER = "(no text)";
const NO_RESULT = "(no result recorded)";

function imageBlock(url: string): AnthropicBlock {
  const data = /^data:([^;]+);base64,(.*)$/s.exec(url);
  if (data)
    return { type: "image", source: { type: "base64", media_type: data[1] ?? "", data: data[2] ?? "" } };
  return { type: "image", source: { type: "url", url } };
}

function thinkingBlocks(message: ChatMessage): AnthropicBlock[] {
  const blocks: AnthropicBlock[] = [];
  for (const detail of reasoningOf(message, ANTHROPIC_REASONING_FORMAT)) {
    if (detail.type === "reasoning.text" && detail.signature !== undefined)
      blocks.push({ type: "thinking", thinking: detail.text, signature: detail.signature });
    else if (detail.type === "reasoning.encrypted")
      blocks.push({ type: "redacted_thinking", data: detail.data });
  }
  return blocks;
}

function parseInput(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : { value };
  } catch {
    // Arguments a model wrote that are not JSON go as they are, under one key: tool_use input must be an object.
    return { arguments: text };
  }
}

function assistantBlocks(message: ChatMessage): AnthropicBlock[] {
  const blocks = thinkingBlocks(message);
  const text = textOf(message.content);
  if (text) blocks.push({ type: "text", text });
  for (const call of message.tool_calls ?? [])
    blocks.push({
      type: "tool_use",
      id: call.id,
      name: call.function.name,
      input: parseInput(call.function.arguments),
    });
  if (!blocks.some((block) => block.type === "text" || block.type === "tool_use"))
    blocks.push({ type: "text", text: EMPTY_ANSWER });
  return blocks;
}

function userBlocks(message: ChatMessage): AnthropicBlock[] {
  const text = textOf(message.content);
  const blocks: AnthropicBlock[] = text ? [{ type: "text", text }] : [];
  for (const url of imagesOf(message.content)) blocks.push(imageBlock(url));
  return blocks.length > 0 ? blocks : [{ type: "text", text: "(empty)" }];
}

/** Adds blocks to the conversation, merging into the last turn when it has the same role. */
function append(turns: AnthropicTurn[], role: AnthropicTurn["role"], blocks: AnthropicBlock[]): void {
  const last = turns.at(-1);
  if (last?.role !== role) {
    turns.push({ role, content: blocks });
    return;
  }
  if (role === "assistant") {
    // Two answers in a row become one turn, which thinking may only open: the newer answer's thinking
    // (the one the in-flight loop needs) opens it; an older one's is dropped, as the provider drops
    // thinking of finished turns anyway.
    const isThinking = (block: AnthropicBlock) =>
      block.type === "thinking" || block.type === "redacted_thinking";
    const newer = blocks.filter(isThinking);
    const kept = newer.length > 0 ? last.content.filter((block) => !isThinking(block)) : last.content;
    last.content = [...newer, ...kept, ...blocks.filter((block) => !isThinking(block))];
    return;
  }
  // tool_result blocks go first in a user turn, before any text.
  const results = blocks.filter((block) => block.type === "tool_result");
  const rest = blocks.filter((block) => block.type !== "tool_result");
  const leading = last.content.findIndex((block) => block.type !== "tool_result");
  const at = leading === -1 ? last.content.length : leading;
  last.content.splice(at, 0, ...results);
  last.content.push(...rest);
}

/** Every tool_use answered in the next user turn: a missing result becomes an error result. */
function closeToolLoops(turns: AnthropicTurn[]): void {
  for (let index = 0; index < turns.length; index++) {
    const turn = turns[index];
    if (turn?.role !== "assistant") continue;
    const uses = turn.content.flatMap((block) => (block.type === "tool_use" ? [block.id] : []));
    if (uses.length === 0) continue;
    let next = turns[index + 1];
    if (next?.role !== "user") {
      next = { role: "user", content: [] };
      turns.splice(index + 1, 0, next);
    }
    const answered = new Set(
      next.content.flatMap((block) => (block.type === "tool_result" ? [block.tool_use_id] : [])),
    );
    const missing = uses.filter((id) => !answered.has(id));
    next.content.unshift(
      ...missing.map(
        (id): AnthropicBlock => ({
          type: "tool_result",
          tool_use_id: id,
          content: NO_RESULT,
          is_error: true,
        }),
      ),
    );
    // Results of calls this answer did not make would be refused: keep only its own.
    const own = new Set(uses);
    next.content = next.content.filter((block) => block.type !== "tool_result" || own.has(block.tool_use_id));
    if (next.content.length === 0) next.content.push({ type: "text", text: "(empty)" });
  }
  for (const [index, turn] of turns.entries()) {
    if (turn.role !== "user") continue;
    const previous = turns[index - 1];
    const made = new Set(
      previous?.role === "assistant"
        ? previous.content.flatMap((block) => (block.type === "tool_use" ? [block.id] : []))
        : [],
    );
    turn.content = turn.content.filter(
      (block) => block.type !== "tool_result" || made.has(block.tool_use_id),
    );
    if (turn.content.length === 0) turn.content.push({ type: "text", text: "(empty)" });
  }
}

/** True when the request continues a tool loop: its last turn answers the previous answer's calls. */
export function inFlightAnswer(turns: readonly AnthropicTurn[]): AnthropicTurn | undefined {
  const last = turns.at(-1);
  const previous = turns.at(-2);
  if (last?.role !== "user" || previous?.role !== "assistant") return undefined;
  return last.content.some((block) => block.type === "tool_result") ? previous : undefined;
}

function startsWithThinking(turn: AnthropicTurn): boolean {
  const first = turn.content[0]?.type;
  return first === "thinking" || first === "redacted_thinking";
}

function withoutThinking(turns: AnthropicTurn[]): AnthropicTurn[] {
  return turns.map((turn) => ({
    ...turn,
    content: turn.content.filter((block) => block.type !== "thinking" && block.type !== "redacted_thinking"),
  }));
}

/**
 * A projected history as an Anthropic Messages request: leading system messages become the system
 * prompt (a later one a user text); tool results go first in the user turn after their calls; thinking
 * blocks come back byte-exact where this provider issued them. Thinking is asked for only where the
 * in-flight answer carries its own; without thinking no thinking block is sent. Cache breakpoints: the
 * end of the system prompt and the summary of the latest compaction, never the last message.
 */
export function toAnthropicRequest(
  messages: readonly ChatMessage[],
  options: { thinking: boolean },
): AnthropicRequestParts {
  const system: AnthropicRequestParts["system"] = [];
  let turns: AnthropicTurn[] = [];
  for (const message of messages) {
    if (message.role === "system" && turns.length === 0) {
      const text = textOf(message.content);
      if (text) system.push({ type: "text", text });
    } else if (message.role === "system" || message.role === "user") {
      append(turns, "user", userBlocks(message));
    } else if (message.role === "tool") {
      append(turns, "user", [
        {
          type: "tool_result",
          tool_use_id: message.tool_call_id ?? "",
          content: textOf(message.content) || NO_RESULT,
        },
      ]);
    } else {
      append(turns, "assistant", assistantBlocks(message));
    }
  }
  if (turns[0]?.role !== "user")
    turns.unshift({ role: "user", content: [{ type: "text", text: "(continue)" }] });
  closeToolLoops(turns);
  const answer = inFlightAnswer(turns);
  const thinking = options.thinking && (answer === undefined || startsWithThinking(answer));
  if (!thinking) turns = withoutThinking(turns);
  const lastSystem = system.at(-1);
  if (lastSystem) lastSystem.cache_control = { type: "ephemeral" };
  markSummary(turns);
  return { system, messages: turns, thinking };
}

/** A breakpoint on the summary text of the latest compaction, unless it is in the last turn. */
function markSummary(turns: AnthropicTurn[]): void {
  for (let index = turns.length - 2; index >= 0; index--) {
    const block = turns[index]?.content.find(
      (candidate) => candidate.type === "text" && candidate.text.startsWith(SUMMARY_HEADER),
    );
    if (block?.type === "text") {
      block.cache_control = { type: "ephemeral" };
      return;
    }
  }
}

/**
 * What a strict Anthropic endpoint would refuse in this request (empty when none): turns not
 * alternating or not starting with the user, a tool_use without its tool_result first in the next
 * turn, a result without its call, thinking missing from the in-flight answer, thinking not first,
 * more than four breakpoints (`extraBreakpoints`: those on tools), empty text.
 */
export function anthropicViolations(request: AnthropicRequestParts, extraBreakpoints = 0): string[] {
  const problems: string[] = [];
  const turns = request.messages;
  if (turns[0]?.role !== "user") problems.push("the first turn is not the user's");
  let breakpoints = extraBreakpoints + request.system.filter((block) => block.cache_control).length;
  for (const [index, turn] of turns.entries()) {
    if (index > 0 && turns[index - 1]?.role === turn.role)
      problems.push(`turns ${index - 1} and ${index} share a role`);
    if (turn.content.length === 0) problems.push(`turn ${index} is empty`);
    for (const block of turn.content) {
      if (block.type === "text" && block.text.length === 0) problems.push(`turn ${index} has empty text`);
      if (block.type === "text" && block.cache_control) {
        breakpoints++;
        if (index === turns.length - 1) problems.push("a breakpoint on the last message");
      }
      if ((block.type === "thinking" || block.type === "redacted_thinking") && !request.thinking)
        problems.push(`turn ${index} has thinking while thinking is off`);
    }
    if (turn.role === "assistant") {
      const firstOther = turn.content.findIndex(
        (block) => block.type !== "thinking" && block.type !== "redacted_thinking",
      );
      if (
        turn.content
          .slice(firstOther)
          .some((block) => block.type === "thinking" || block.type === "redacted_thinking")
      )
        problems.push(`turn ${index}: thinking after text or tool_use`);
      const uses = turn.content.flatMap((block) => (block.type === "tool_use" ? [block.id] : []));
      const next = turns[index + 1]?.content ?? [];
      const cut = next.findIndex((block) => block.type !== "tool_result");
      const leading = cut === -1 ? next : next.slice(0, cut);
      const results = new Set(
        leading.flatMap((block) => (block.type === "tool_result" ? [block.tool_use_id] : [])),
      );
      for (const id of uses)
        if (!results.has(id)) problems.push(`tool_use ${id} without tool_result immediately after`);
    } else {
      const previous = turns[index - 1];
      const made = new Set(
        previous?.role === "assistant"
          ? previous.content.flatMap((block) => (block.type === "tool_use" ? [block.id] : []))
          : [],
      );
      for (const block of turn.content)
        if (block.type === "tool_result" && !made.has(block.tool_use_id))
          problems.push(`tool_result ${block.tool_use_id} without its tool_use`);
    }
  }
  const answer = inFlightAnswer(turns);
  if (request.thinking && answer && !startsWithThinking(answer))
    problems.push("the in-flight answer lacks its thinking");
  if (breakpoints > ANTHROPIC_MAX_BREAKPOINTS) problems.push(`${breakpoints} cache breakpoints`);
  return problems;
}
