import type { BaseLanguageModel } from "@langchain/core/language_models/base";
import { ClearToolUsesEdit } from "langchain";
import { fromLangChain } from "../langchain-convert.ts";
import type { BenchAdapter } from "./adapter.ts";
import { type CountMode, prepareLangChain } from "./langchain-counter.ts";

/**
 * langchain v1 context editing: ClearToolUsesEdit triggered at the budget,
 * keeping the 3 most recent tool results (its default), older results
 * replaced by "[cleared]". `apply` edits the array in place, so each call
 * gets a fresh slice.
 */
export function createClearToolUsesAdapter(mode: CountMode): BenchAdapter {
  return {
    name: `langchain ClearToolUsesEdit (${mode} counts)`,
    targetsBudget: true,
    sequential: false,
    prepare(messages, budget) {
      const file = prepareLangChain(messages, mode);
      const edit = new ClearToolUsesEdit({ trigger: { tokens: budget }, keep: { messages: 3 } });
      // The model is only read for fractional triggers, which this bench does not use.
      const model = undefined as unknown as BaseLanguageModel;
      return {
        async call(end) {
          const list = file.messages.slice(0, end);
          const start = performance.now();
          await edit.apply({ messages: list, model, countTokens: file.counterForCall() });
          const ms = performance.now() - start;
          return { output: list.map(fromLangChain), ms };
        },
      };
    },
  };
}
