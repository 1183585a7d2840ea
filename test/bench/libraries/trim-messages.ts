import { type BaseMessage, trimMessages } from "@langchain/core/messages";
import type { BenchAdapter } from "../adapters/adapter.ts";
import { fromLangChain } from "./langchain-convert.ts";
import { type CountMode, prepareLangChain } from "./langchain-counter.ts";

/** @langchain/core trimMessages, strategy "last", whole messages, system kept, starting on a human message. */
export function createTrimMessagesAdapter(mode: CountMode): BenchAdapter {
  return {
    name: `langchain trimMessages (${mode} counts)`,
    targetsBudget: true,
    sequential: false,
    prepare(messages, budget) {
      const file = prepareLangChain(messages, mode);
      return {
        async call(end) {
          const list = file.messages.slice(0, end);
          const start = performance.now();
          const trimmed = await trimMessages(list, {
            maxTokens: budget,
            strategy: "last",
            tokenCounter: file.counterForCall(),
            includeSystem: true,
            startOn: "human",
            allowPartial: false,
          });
          const ms = performance.now() - start;
          // When nothing fits, trimMessages with includeSystem returns [undefined]: drop such holes.
          const kept = trimmed.filter((message): message is BaseMessage => message !== undefined);
          return { output: kept.map(fromLangChain), ms };
        },
      };
    },
  };
}
