import type { ChatMessage } from "@longrun/protocol";
import type { ClientTurn } from "./client-turn.ts";

/**
 * The streaming Chat Completions request sent upstream for a turn: the projected messages, the
 * client's tools as they are, its tool choice and sampling options. Usage is always asked for: it is
 * what the client is told, and the next projection's anchor.
 */
export function upstreamRequest(turn: ClientTurn, messages: readonly ChatMessage[], model: string) {
  return {
    ...turn.sampling,
    model,
    messages: [...messages],
    ...(turn.tools.length > 0 ? { tools: turn.tools } : {}),
    ...(turn.tools.length > 0 && turn.toolChoice !== undefined ? { tool_choice: turn.toolChoice } : {}),
    ...(turn.tools.length > 0 && turn.parallelToolCalls !== undefined
      ? { parallel_tool_calls: turn.parallelToolCalls }
      : {}),
    stream: true as const,
    stream_options: { include_usage: true },
  };
}
