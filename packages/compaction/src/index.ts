export {
  type AssembledRaw,
  assembleHeader,
  assembleRaw,
  lockVerbatim,
  type RepairReport,
} from "./assemble.ts";
export { BillingChain, type PricedCall, RequestPartCounter } from "./billing-chain.ts";
export { decodeText, looksBinaryText } from "./binary.ts";
export { type Boundary, resolveBoundary } from "./boundary.ts";
export { piecesAreShort } from "./bpe-count.ts";
export {
  classifyTool,
  defaultToolClassification,
  parseArguments,
  shellCommandOf,
  type ToolClass,
  type ToolClassification,
  type ToolKind,
} from "./classify.ts";
export { type CollapseOptions, collapseTraces } from "./collapse.ts";
export {
  LEDGER_BUDGET,
  ledgerBudgetTokens,
  POST_COMPACTION_SHARE,
  postCompactionTargetTokens,
  SUMMARY_BUDGET,
  summaryBudgetTokens,
} from "./compaction-budget.ts";
export {
  type CompactionNeed,
  compactionEconomy,
  DEFAULT_PRICES,
  type EconomyInput,
  type EconomyVerdict,
  isNoProgress,
  MIN_COMPACTION_PROGRESS,
  type TokenPrices,
} from "./compaction-economy.ts";
export type { CompactionDecision } from "./compaction-need.ts";
export { type Cutoff, type CutoffOptions, selectCutoff } from "./cutoff.ts";
export { describeCall, describeResult } from "./describe-call.ts";
export {
  type CompactionFit,
  type FitCompactionInput,
  type FittedFields,
  fitCompaction,
  type RefitCompactionInput,
  refitCompaction,
} from "./fit-compaction.ts";
export { argumentText, WRITTEN_ESCAPE } from "./ledger/names.ts";
export { unshownOutcomes } from "./ledger/outcome-check.ts";
export {
  LEDGER_FOOTER,
  LEDGER_HEADER,
  RECENT_READS,
  type RenderedLedger,
  renderLedger,
} from "./ledger/render-ledger.ts";
export { clipLine } from "./ledger/result-outcome.ts";
export {
  emptyLedger,
  type LedgerInput,
  type LedgerSource,
  type LedgerState,
  ledgerSources,
  updateLedger,
} from "./ledger/update-ledger.ts";
export { type WorkingFile, workingFiles } from "./ledger/working-files.ts";
export {
  clearedMarker,
  isIdle,
  lastActivityOf,
  type MicrocompactOptions,
  microcompact,
} from "./microcompact.ts";
export {
  type CallPointCost,
  type PlainBaselineInput,
  type PlainCompaction,
  plainBaseline,
} from "./plain-baseline.ts";
export {
  PLAIN_SUMMARY_INSTRUCTION,
  type PlainCallPoint,
  type PlainRequest,
  PlainStrategy,
  type PlainStrategyOptions,
} from "./plain-strategy.ts";
export {
  type CompactionPlan,
  type CompactionPlanOptions,
  type CompactionProgress,
  compactionFields,
  planCompaction,
} from "./plan-compaction.ts";
export {
  backgroundLineTokens,
  type PreparedSummary,
  preparedOnBase,
  shouldPrepareSummary,
} from "./prepared-summary.ts";
export {
  ESTIMATE_PAD,
  estimateReasoningTokens,
  measurePressure,
  type Pressure,
  type PressureInput,
  type UsageAnchor,
} from "./pressure.ts";
export { type Projection, type ProjectionInput, project, type StageReport } from "./project.ts";
export {
  ANTHROPIC_REASONING_FORMAT,
  type AnthropicBlock,
  type AnthropicRequestParts,
  type AnthropicTurn,
  anthropicViolations,
  RESPONSES_REASONING_FORMAT,
  type ResponsesInputItem,
  responsesViolations,
  toAnthropicRequest,
  toResponsesInput,
} from "./provider-rules/index.ts";
export { memoized, ReductionCache } from "./reductions.ts";
export { cancelledResultText, type RepairResult, repairToolPairs } from "./repair.ts";
export {
  BILLING_PROFILES,
  type BillableRequest,
  type BillingProfile,
  type BillingRates,
  billRequest,
  callCost,
  DEFAULT_OUTPUT_RATIO,
  type RequestBill,
  type RequestParts,
  requestPartsOf,
  sharedPrefixParts,
} from "./request-billing.ts";
export {
  DEFAULT_RESTORATION_BUDGETS,
  planRestoration,
  type RestorableState,
  type RestorationBudgets,
  type RestorationInput,
  type RestorationPlan,
  type RestoredFile,
} from "./restoration.ts";
export { hasProviderState, sanitizeMessage, sanitizeMessages } from "./sanitize.ts";
export { classifyShellCommand, type ShellReadKind } from "./shell-command.ts";
export {
  defaultRewriteMinRoom,
  defaultRewriteMinTokens,
  type MemoSegment,
  type ProjectionMemo,
  type RewriteReport,
  rawKey,
} from "./stable.ts";
export { rebuildMemo } from "./stable-fold.ts";
export {
  type AgentRequest,
  buildContinuationRequest,
  type ContinuationInput,
  continuationInstruction,
} from "./summary-continuation.ts";
export {
  buildSummaryMessage,
  SUMMARY_HEADER,
  type SummaryFrame,
  type SummaryMeta,
  summaryFrameOf,
  summaryTextOf,
} from "./summary-message.ts";
export {
  buildSummaryRequest,
  localDateTime,
  type SummaryKind,
  type SummaryRequest,
  type SummaryRequestInput,
  summarySystemPrompt,
} from "./summary-request.ts";
export { type Thresholds, thresholds } from "./thresholds.ts";
export { type ToChatOptions, toChatMessage, toChatMessages } from "./to-chat.ts";
export {
  createTokenizer,
  estimateMessageTokens,
  estimateStoredTokens,
  estimateTokens,
  estimateToolsTokens,
  MESSAGE_OVERHEAD,
  type Tokenizer,
  type ToolSpec,
} from "./tokenizer.ts";
export {
  type TruncateOptions,
  truncateArguments,
  truncateArgumentsJson,
  truncationMarker,
} from "./truncate.ts";
export type { ProjectionItem, ProjectionMark, StageResult } from "./types.ts";
export { type VerbatimPart, verbatimPart } from "./verbatim.ts";
export { type Verification, verifyProjection } from "./verify.ts";
