import { pruneMessages } from "ai";
import type { BenchAdapter } from "../adapters/adapter.ts";
import { fromModelMessage, toModelMessage } from "./ai-convert.ts";

/** ai 6.x pruneMessages: drops reasoning and tool traffic older than the last 2 messages; no budget. */
export const pruneMessagesAdapter: BenchAdapter = {
  name: "ai pruneMessages",
  targetsBudget: false,
  sequential: false,
  prepare(messages) {
    const converted = messages.map(toModelMessage);
    return {
      async call(end) {
        const list = converted.slice(0, end);
        const start = performance.now();
        const pruned = pruneMessages({
          messages: list,
          reasoning: "before-last-message",
          toolCalls: "before-last-2-messages",
          emptyMessages: "remove",
        });
        const ms = performance.now() - start;
        return { output: pruned.flatMap(fromModelMessage), ms };
      },
    };
  },
};
