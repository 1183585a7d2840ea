import type { BaseLanguageModel } from "@langchain/core/language_models/base";
import type { BaseMessage } from "@langchain/core/messages";
import type { BenchAdapter } from "../adapters/adapter.ts";
import { fromLangChain } from "./langchain-convert.ts";
import { type CountMode, prepareLangChain } from "./langchain-counter.ts";

/** The part of langchain's ClearToolUsesEdit this bench calls. */
interface ToolUsesEdit {
  apply(input: {
    messages: BaseMessage[];
    model: BaseLanguageModel;
    countTokens: (messages: BaseMessage[]) => number | Promise<number>;
  }): Promise<unknown>;
}
type ToolUsesEditClass = new (options: {
  trigger: { tokens: number };
  keep: { messages: number };
}) => ToolUsesEdit;

// langchain is loaded through a specifier TypeScript does not follow: its types pull in
// @langchain/langgraph's zod plugin, which redeclares zod's ZodType.register for the whole program
// and so breaks @hono/zod-openapi's route types in every server file this workspace typechecks.
const langchainModule: string = "langchain";
let editClass: Promise<ToolUsesEditClass> | undefined;
function loadClearToolUsesEdit(): Promise<ToolUsesEditClass> {
  editClass ??= import(langchainModule).then(
    (module: { ClearToolUsesEdit: ToolUsesEditClass }) => module.ClearToolUsesEdit,
  );
  return editClass;
}

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
      const edit = loadClearToolUsesEdit().then(
        (ClearToolUsesEdit) => new ClearToolUsesEdit({ trigger: { tokens: budget }, keep: { messages: 3 } }),
      );
      // The model is only read for fractional triggers, which this bench does not use.
      const model = undefined as unknown as BaseLanguageModel;
      return {
        async call(end) {
          const list = file.messages.slice(0, end);
          const loaded = await edit;
          const start = performance.now();
          await loaded.apply({ messages: list, model, countTokens: file.counterForCall() });
          const ms = performance.now() - start;
          return { output: list.map(fromLangChain), ms };
        },
      };
    },
  };
}
