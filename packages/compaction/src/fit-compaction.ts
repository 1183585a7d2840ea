import {
  type ChatMessage,
  type CompactionShrink,
  contentText,
  type Ledger,
  type ModelProfile,
  type RestoredItem,
} from "@longrun/protocol";
import { ledgerBudgetTokens, postCompactionTargetTokens } from "./compaction-budget.ts";
import { argumentText, namesIn } from "./ledger/names.ts";
import { isEmptyLedger, renderLedger, type VisibleContext } from "./ledger/render-ledger.ts";
import type { CompactionPlan } from "./plan-compaction.ts";
import { ESTIMATE_PAD } from "./pressure.ts";
import type { Projection } from "./project.ts";
import { planRestoration, type RestorationBudgets, type RestoredFile } from "./restoration.ts";
import { buildSummaryMessage, cutSummaryText, summaryFrameOf } from "./summary-message.ts";
import type { Tokenizer } from "./tokenizer.ts";
import { type VerbatimPart, verbatimPart } from "./verbatim.ts";
import { type Verification, verifyProjection } from "./verify.ts";

/** The parts of a compaction event that fitting decides. */
export interface FittedFields {
  summaryMessage: ChatMessage;
  ledger: Ledger;
  restored: RestoredItem[];
  shrunk: CompactionShrink[];
}

/** Input of fitCompaction. */
export interface FitCompactionInput {
  plan: CompactionPlan;
  /** The summarizer's answer. */
  summaryText: string;
  /** The new ledger: the compaction in force's ledger with plan.ledgerSources folded in (updateLedger). */
  ledger: Ledger;
  /** Files that may be restored, most important first, as read now. */
  files: readonly RestoredFile[];
  /** Cap on restoration (the budget the projection re-plans with). */
  restorationCap: RestorationBudgets;
  /** Named in the pointer of a cut summary. */
  historyFile: string | null;
  profile: Partial<ModelProfile>;
  tokenizer: Tokenizer;
  /** The projection the next call would get with these fields in the compaction event. */
  measure: (fields: FittedFields) => Projection;
}

/** A fitted compaction: its fields, the projection they give, and the verdict on it. */
export interface CompactionFit {
  fields: FittedFields;
  projection: Projection;
  verdict: Verification;
  verbatim: VerbatimPart;
  /** Tokens of the ledger block as rendered in the summary message (0: none). */
  ledgerTokens: number;
}

/** Below this many tokens a ledger shows little beyond its own frame: drop it instead. */
const MIN_LEDGER_TOKENS = 40;
const MIN_RESTORED_FILE_TOKENS = 100;

/**
 * Builds a compaction's summary message (the summarizer's text, then the ledger block), chooses the
 * restored files within what the post-compaction target leaves, and — only while the result is over
 * the limit — shrinks in order: restored files, the summary text (cut at a boundary with a pointer
 * to the history file), the ledger (to its most recent entries), and at last the whole summary
 * message. Each shrink is recorded. Refusal is left to the caller, whose verdict says whether the
 * verbatim part alone is over the limit.
 */
export function fitCompaction(input: FitCompactionInput): CompactionFit {
  return fitWith(input, (text, ledgerText) =>
    buildSummaryMessage(text, input.plan.summaryMeta, ledgerText, input.ledger),
  );
}

/** Input of refitCompaction: the compaction in force instead of a plan and a summarizer's answer. */
export type RefitCompactionInput = Omit<FitCompactionInput, "plan" | "summaryText"> & {
  /** The summary message of the compaction in force (with its ledger block, if any). */
  summaryMessage: ChatMessage;
};

/**
 * Fits the compaction in force again when there is nothing new to summarize but the projection is
 * over the limit (a kept tail that grew next to a long summary): the same shrinks, in the same
 * order, on the existing summary text, ledger and restored files. No model call.
 */
export function refitCompaction(input: RefitCompactionInput): CompactionFit {
  const frame = summaryFrameOf(input.summaryMessage);
  return fitWith({ ...input, summaryText: frame.text }, frame.build);
}

/**
 * What a projection shows beside its summary and restored files: the system prompt, the pinned
 * message and the kept tail, which every request carries until the next compaction.
 */
function visibleContext(projection: Projection): VisibleContext {
  const texts: string[] = [];
  projection.messages.forEach((message, index) => {
    const mark = projection.marks[index];
    if (mark === "summary" || mark === "restored") return;
    texts.push(contentText(message.content));
    for (const call of message.tool_calls ?? []) texts.push(argumentText(call.function.arguments));
  });
  // Each text on its own: namesIn reads the first part of a long one, as the ledger's names did.
  return { names: new Set(texts.flatMap((text) => namesIn(text))), text: texts.join("\n") };
}

function fitWith(
  input: Omit<FitCompactionInput, "plan">,
  build: (text: string, ledgerText: string | null) => ChatMessage,
): CompactionFit {
  const { tokenizer, ledger } = input;
  const shrunk: CompactionShrink[] = [];
  let ledgerBudget = ledgerBudgetTokens(input.profile);
  let ledgerText = isEmptyLedger(ledger)
    ? null
    : renderLedger(ledger, { budgetTokens: ledgerBudget, tokenizer });
  let summary = input.summaryText.trim();
  let dropped = false;
  let restored: RestoredItem[] = [];
  const fields = (): FittedFields => ({
    summaryMessage: dropped ? { role: "user", content: "" } : build(summary, ledgerText?.text ?? null),
    ledger,
    restored,
    shrunk,
  });

  let projection = input.measure(fields());
  // The ledger leaves out what the request shows anyway: its budget goes to what it would not hold.
  const visible = visibleContext(projection);
  if (ledgerText !== null) {
    ledgerText = renderLedger(ledger, { budgetTokens: ledgerBudget, tokenizer, visible });
    projection = input.measure(fields());
  }
  const room = Math.min(
    input.restorationCap.totalTokens,
    Math.floor((postCompactionTargetTokens(input.profile) - projection.tokens) / ESTIMATE_PAD),
  );
  if (input.files.length > 0 && room >= MIN_RESTORED_FILE_TOKENS) {
    restored = planRestoration({
      files: input.files,
      state: null,
      tokenizer,
      budgets: {
        maxFiles: input.restorationCap.maxFiles,
        totalTokens: room,
        perFileTokens: Math.min(input.restorationCap.perFileTokens, room),
      },
    }).items;
    if (restored.length > 0) projection = input.measure(fields());
  }

  const overflow = () => Math.ceil((projection.tokens - projection.limitTokens) / ESTIMATE_PAD);
  const shrink = (what: CompactionShrink["what"], detail: string, apply: () => void) => {
    const before = projection.tokens;
    apply();
    projection = input.measure(fields());
    shrunk.push({ what, tokensBefore: before, tokensAfter: projection.tokens, detail });
  };
  if (overflow() > 0 && restored.length > 0) {
    const count = restored.length;
    shrink("restored_files", `${count} restored file${count === 1 ? "" : "s"} left out`, () => {
      restored = [];
    });
  }
  if (overflow() > 0 && summary !== "") {
    const tokens = tokenizer.count(summary);
    const allowed = tokens - overflow() - 8;
    shrink("summary", `summary text cut from ${tokens} tokens to fit`, () => {
      summary = allowed > 0 ? cutSummaryText(summary, allowed, tokenizer, input.historyFile).text : "";
    });
  }
  if (overflow() > 0 && ledgerText !== null) {
    const tokens = ledgerText.tokens;
    ledgerBudget = Math.min(ledgerBudget, tokens - overflow() - 4);
    shrink("ledger", `ledger cut from ${tokens} tokens to its most recent entries`, () => {
      ledgerText =
        ledgerBudget >= MIN_LEDGER_TOKENS
          ? renderLedger(ledger, { budgetTokens: ledgerBudget, tokenizer, visible })
          : null;
    });
  }
  if (overflow() > 0) {
    shrink("summary", "summary message left out: the verbatim part fills the window", () => {
      dropped = true;
    });
  }
  const final = fields();
  const verbatim = verbatimPart(projection);
  let verdict = verifyProjection(projection);
  if (!verdict.ok) {
    const part = `the verbatim part (system prompt, tools, latest user message, active tool loop) is ${verbatim.tokens} tokens`;
    verdict = {
      ...verdict,
      reason: `${verdict.reason}; ${part}${verbatim.tokens <= projection.limitTokens ? ", the rest is the recent context the cut kept" : ""}`,
    };
  }
  return {
    fields: final,
    projection,
    verdict,
    verbatim,
    ledgerTokens: !dropped && ledgerText !== null ? ledgerText.tokens : 0,
  };
}
