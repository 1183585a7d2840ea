import type { ChatMessage, ToolCall } from "@longrun/protocol";
import { contentText } from "@longrun/protocol";
import { classifyTool, defaultToolClassification, type ToolClassification } from "./classify.ts";
import { describeCall, describeResult } from "./describe-call.ts";
import { callOutcome } from "./ledger/call-outcome.ts";
import { memoized, type ReductionCache } from "./reductions.ts";
import { estimateMessageTokens, type Tokenizer } from "./tokenizer.ts";
import type { ProjectionItem, StageResult } from "./types.ts";

/** Options of collapseTraces. */
export interface CollapseOptions {
  tokenizer: Tokenizer;
  table?: ToolClassification;
  /** Per-fact results from earlier calls (kinds, record lines, record token counts). */
  cache?: ReductionCache;
  /**
   * Also collapse each run's last call/result pair (a batched rewrite takes what would come due
   * soon). Locked items (the active tool loop) are never part of a run.
   */
  wholeRuns?: boolean;
}

interface TraceGroup {
  start: number;
  /** Assistant message + its results (contiguous after repair). */
  length: number;
}

const NOTE_CHARS = 200;

/** The group starting at `start` if it is a completed, unlocked read/search trace. */
function traceGroupAt(
  items: readonly ProjectionItem[],
  start: number,
  table: ToolClassification,
  cache: ReductionCache | undefined,
): TraceGroup | null {
  const head = items[start];
  const calls = head?.message.tool_calls;
  if (!head || head.locked || head.message.role !== "assistant" || !calls || calls.length === 0) return null;
  for (const [index, call] of calls.entries()) {
    const classify = () => classifyTool(call.function.name, call.function.arguments, table);
    const kind =
      cache && head.sourceId !== undefined
        ? memoized(cache.kinds, `${head.sourceId}#${index}`, classify)
        : classify();
    if (kind !== "read" && kind !== "search") return null;
  }
  for (let offset = 1; offset <= calls.length; offset++) {
    const result = items[start + offset];
    if (!result || result.locked || result.message.role !== "tool") return null;
    if (result.mark !== "raw" || result.status === "cancelled") return null;
    if (result.message.tool_call_id !== calls[offset - 1]?.id) return null;
  }
  return { start, length: calls.length + 1 };
}

function recordLine(call: ToolCall, result: ProjectionItem | undefined): string {
  const text = contentText(result?.message.content ?? null);
  // A result recorded "ok" by a harness that cannot tell may still say it failed: keep what it said.
  const outcome = callOutcome(call, text, result?.status);
  if (outcome.failed) {
    const code = outcome.exitCode === null ? "" : ` exit ${outcome.exitCode}`;
    return `- ${describeCall(call)} (error${code}: ${outcome.line || "no output"})`;
  }
  return `- ${describeCall(call)} ${describeResult(result?.status ?? "ok", text)}`;
}

/** The single assistant message that replaces a run of trace groups. */
function buildRecord(
  items: readonly ProjectionItem[],
  groups: readonly TraceGroup[],
  cache: ReductionCache | undefined,
): ChatMessage {
  const lines: string[] = [];
  let callCount = 0;
  for (const group of groups) {
    const head = items[group.start] as ProjectionItem;
    const note = contentText(head.message.content).replace(/\s+/g, " ").trim();
    if (note.length > 0) {
      lines.push(
        `- note: ${note.length > NOTE_CHARS ? `${note.slice(0, NOTE_CHARS)}… [${note.length - NOTE_CHARS} chars cut]` : note}`,
      );
    }
    (head.message.tool_calls ?? []).forEach((call, offset) => {
      const result = items[group.start + offset + 1];
      const line = () => recordLine(call, result);
      // A result fact answers one call: its line is the same whichever record it lands in.
      lines.push(
        cache && result?.sourceId !== undefined
          ? memoized(cache.lines, `${result.sourceId}:${call.id}`, line)
          : line(),
      );
      callCount++;
    });
  }
  const header = `[collapsed ${callCount} earlier read/search ${callCount === 1 ? "call" : "calls"}; results no longer shown, re-run a call if its output is needed]`;
  return { role: "assistant", content: `${header}\n${lines.join("\n")}` };
}

/** The record for the run's groups `collapsed` (starting at `index`), if smaller than what it replaces. */
function recordFor(
  items: readonly ProjectionItem[],
  index: number,
  collapsed: readonly TraceGroup[],
  options: CollapseOptions,
): { item: ProjectionItem; saved: number; end: number } | null {
  const lastGroup = collapsed[collapsed.length - 1] as TraceGroup;
  const stop = lastGroup.start + lastGroup.length;
  const build = () => {
    const message = buildRecord(items, collapsed, options.cache);
    return { message, tokens: estimateMessageTokens(message, options.tokenizer) };
  };
  // A record is a function of the facts it replaces: built once for that span of facts.
  const first = items[index]?.sourceId;
  const end = items[stop - 1]?.sourceId;
  const { message: record, tokens: recordTokens } =
    options.cache && first !== undefined && end !== undefined
      ? memoized(options.cache.records, `${first}..${end}:${stop - index}`, build)
      : build();
  let replacedTokens = 0;
  for (let at = index; at < stop; at++) replacedTokens += (items[at] as ProjectionItem).tokens;
  if (recordTokens >= replacedTokens) return null;
  return {
    item: { message: record, mark: "collapsed", tokens: recordTokens },
    saved: replacedTokens - recordTokens,
    end: stop,
  };
}

/**
 * Collapses each run of consecutive completed read/search traces into ONE assistant text
 * message (no tool_calls, so I1 holds trivially), keeping the run's last call/result pair
 * verbatim (with `wholeRuns`, that pair too when the whole run's record saves more). A record is
 * used only when it is smaller than what it replaces.
 */
export function collapseTraces(items: readonly ProjectionItem[], options: CollapseOptions): StageResult {
  const table = options.table ?? defaultToolClassification;
  const out: ProjectionItem[] = [];
  let saved = 0;
  let collapsedCalls = 0;
  let records = 0;
  let index = 0;
  while (index < items.length) {
    const run: TraceGroup[] = [];
    let cursor = index;
    for (
      let group = traceGroupAt(items, cursor, table, options.cache);
      group;
      group = traceGroupAt(items, cursor, table, options.cache)
    ) {
      run.push(group);
      cursor += group.length;
    }
    const choices = options.wholeRuns ? [run, run.slice(0, -1)] : [run.slice(0, -1)];
    let collapsed: TraceGroup[] = [];
    let record: ReturnType<typeof recordFor> = null;
    for (const choice of choices) {
      const candidate = choice.length === 0 ? null : recordFor(items, index, choice, options);
      if (candidate !== null && (record === null || candidate.saved > record.saved)) {
        record = candidate;
        collapsed = choice;
      }
    }
    if (record === null) {
      const end = run.length > 0 ? cursor : index + 1;
      for (let at = index; at < end; at++) out.push(items[at] as ProjectionItem);
      index = end;
      continue;
    }
    out.push(record.item);
    saved += record.saved;
    records++;
    for (const group of collapsed) collapsedCalls += group.length - 1;
    for (let at = record.end; at < cursor; at++) out.push(items[at] as ProjectionItem);
    index = cursor;
  }
  const removed =
    records === 0 ? "" : `${collapsedCalls} read/search calls collapsed into ${records} records`;
  return { items: out, saved, removed };
}
