import type { CompactionList, ContextView, StoredMessage, ThreadCost } from "@longrun/protocol";
import { useEffect, useMemo, useState } from "react";
import { errorText, formatBilled, formatTokens } from "../lib/format.ts";
import {
  type RemovedLine,
  type RequestCheck,
  removedLines,
  requestChecks,
} from "../state/compaction-diff.ts";
import { useStore } from "../state/store-context.tsx";
import type { CompactionNotice, Measurement, ThreadState } from "../state/thread-state.ts";
import { percentChange, TRIGGER_TEXT } from "./compaction-notice.tsx";
import { ModalDialog } from "./modal-dialog.tsx";
import { plainSaving } from "./thread-cost.tsx";

type CompactionDetail = CompactionList["compactions"][number];

const PAGE = 500;

/** Everything the diff is drawn from, read when it opens. */
interface DiffData {
  detail: CompactionDetail;
  /** The agent's messages of the compaction's range (from the log, which keeps them). */
  messages: StoredMessage[];
  view: ContextView;
  /** Null when the thread's cost cannot be read (the rest of the diff stands without it). */
  cost: ThreadCost | null;
}

/**
 * One compaction as a diff, in a modal dialog: each message it removed in one line beside the entry of its
 * ledger that now stands for it (or "not carried"), the files it restored, whether the next request still
 * holds the files written, the last error and the open TODOs, and what it cost and saved. Read from
 * GET /v1/agents/:id/compactions (ledger, coverage, restored), /messages (the range), /context (the next
 * request) and /v1/threads/:id/cost (the plain strategy, for the whole thread); the cost figures are those
 * of its `compaction.completed`.
 */
export function CompactionDiff({
  thread,
  agentId,
  compactionId,
  onClose,
}: {
  thread: ThreadState;
  agentId: string;
  compactionId: string;
  onClose: () => void;
}) {
  const { api } = useStore();
  const [data, setData] = useState<DiffData | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let cancelled = false;
    const load = async () => {
      const [list, view, cost] = await Promise.all([
        api.agents.compactions(agentId),
        api.agents.context(agentId),
        api.threads.cost(thread.threadId).catch(() => null),
      ]);
      const detail = list.find((item) => item.id === compactionId);
      if (!detail) throw new Error("the server does not list this compaction");
      const messages: StoredMessage[] = [];
      const coverage = detail.coverage;
      if (coverage && coverage.toSeq >= coverage.fromSeq) {
        let afterSeq: number | null = coverage.fromSeq - 1;
        while (afterSeq !== null && afterSeq < coverage.toSeq) {
          const page = await api.agents.messages(agentId, { afterSeq, limit: PAGE });
          if (cancelled) return;
          messages.push(...page.messages.filter((message) => message.seq <= coverage.toSeq));
          afterSeq = page.nextAfterSeq;
        }
      }
      if (!cancelled) setData({ detail, messages, view, cost });
    };
    load().catch((caught: unknown) => {
      if (!cancelled) setError(errorText(caught));
    });
    return () => {
      cancelled = true;
    };
  }, [api, agentId, compactionId, thread.threadId]);
  const notice = Object.values(thread.compactions).find((item) => item.compactionId === compactionId);
  // Read once when the dialog opens; the thread's events re-render it without changing any of it.
  const lines = useMemo(() => {
    const coverage = data?.detail.coverage;
    return data && coverage ? removedLines(data.messages, coverage, data.detail.ledger ?? null) : null;
  }, [data]);
  const first = lines?.[0]?.seq;
  const last = lines?.at(-1)?.seq;
  return (
    <ModalDialog
      className="compaction-diff"
      testId="compaction-diff"
      titleId="compaction-diff-title"
      onClose={onClose}
    >
      <div className="panel-head">
        <h2 id="compaction-diff-title">
          Compaction diff
          {first === undefined || last === undefined
            ? ""
            : first === last
              ? ` · message #${first}`
              : ` · messages #${first}–#${last}`}
        </h2>
        <button type="button" className="small" data-testid="compaction-diff-close" onClick={onClose}>
          Close
        </button>
      </div>
      {error && <p className="error">{error}</p>}
      {!data && !error && <p className="muted">Loading…</p>}
      {data && (
        <>
          <RemovedSection detail={data.detail} lines={lines} />
          <RestoredSection detail={data.detail} />
          <ChecksSection data={data} compactionId={compactionId} />
          <CostSection
            detail={data.detail}
            notice={notice ?? null}
            around={notice ? requestsAround(thread.measurements[agentId] ?? [], notice.eventSeq) : null}
            cost={data.cost}
          />
        </>
      )}
    </ModalDialog>
  );
}

function RemovedSection({ detail, lines }: { detail: CompactionDetail; lines: RemovedLine[] | null }) {
  if (!lines) {
    return <p className="muted small">The server does not say which messages this compaction removed.</p>;
  }
  const carried = lines.filter((line) => line.carriedBy.length > 0).length;
  return (
    <section aria-labelledby="diff-removed-title">
      <h3 id="diff-removed-title">Removed messages and what stands for them now</h3>
      <p className="muted small" data-testid="diff-removed-count">
        {lines.length} message{lines.length === 1 ? "" : "s"} removed: {carried} carried by an entry of the
        working-state ledger, {lines.length - carried} not carried (only the summary may mention{" "}
        {lines.length - carried === 1 ? "it" : "them"}).
        {detail.ledger ? "" : " This compaction has no ledger."}
      </p>
      <ol className="diff-lines">
        {lines.map((line) => (
          <DiffLine key={line.seq} line={line} />
        ))}
      </ol>
    </section>
  );
}

function DiffLine({ line }: { line: RemovedLine }) {
  const carried = line.carriedBy.length > 0;
  return (
    <li
      className={`diff-line${carried ? "" : " not-carried"}`}
      data-testid="diff-line"
      data-seq={line.seq}
      data-role={line.role}
      data-carried={carried ? "true" : "false"}
    >
      <div className="diff-removed">
        <span className="diff-seq">#{line.seq}</span> <span className="role">{line.role}</span>
        {line.failed && <span className="badge status-failed">failed</span>}{" "}
        <span className="diff-what">{line.what}</span>
      </div>
      <div className="diff-carried">
        <span className="sr-only">Now in the ledger: </span>
        {carried ? (
          <ul>
            {line.carriedBy.map((entry) => (
              <li
                key={`${entry.section}:${entry.text}`}
                data-testid="diff-entry"
                data-section={entry.section}
              >
                <strong>{entry.section}</strong> {entry.text}
              </li>
            ))}
          </ul>
        ) : (
          <span className="diff-not-carried" data-testid="diff-not-carried">
            not carried
          </span>
        )}
      </div>
    </li>
  );
}

function RestoredSection({ detail }: { detail: CompactionDetail }) {
  return (
    <section aria-labelledby="diff-restored-title">
      <h3 id="diff-restored-title">Restored after the summary</h3>
      {detail.restored.length === 0 ? (
        <p className="muted small">Nothing was restored.</p>
      ) : (
        <ul className="small">
          {detail.restored.map((item) => (
            <li key={`${item.kind}:${item.path ?? ""}`} data-testid="diff-restored" data-kind={item.kind}>
              {item.kind}
              {item.path ? ` ${item.path}` : ""} ({formatTokens(item.tokens)} tokens
              {item.version ? `, ${item.version}` : ""})
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

const CHECK_KEYS: Record<RequestCheck["what"], string> = {
  "Files written": "files",
  "Last error": "error",
  "Open TODOs": "todos",
};

function ChecksSection({ data, compactionId }: { data: DiffData; compactionId: string }) {
  const { detail, view } = data;
  const inForce = view.compaction?.id === compactionId;
  return (
    <section aria-labelledby="diff-checks-title">
      <h3 id="diff-checks-title">Does the next request still hold it?</h3>
      <p className="muted small" data-testid="diff-checks-against">
        Checked against the next request as the server projected it when this diff opened (
        {formatTokens(view.tokens)} tokens, {view.messages.length} messages):{" "}
        {inForce
          ? "this compaction is the one in force."
          : "a later compaction is in force, so what this one carried must have lasted through it."}
      </p>
      {detail.ledger ? (
        <ul className="diff-checks small">
          {requestChecks(detail.ledger, view).map((check) => (
            <li
              key={check.what}
              data-testid="diff-check"
              data-check={CHECK_KEYS[check.what]}
              data-ok={check.ok === null ? "none" : check.ok ? "pass" : "fail"}
              className={check.ok === false ? "error" : undefined}
            >
              <strong>{check.ok === null ? "Nothing to check" : check.ok ? "Pass" : "Fail"}</strong> ·{" "}
              {check.what}: {check.detail}
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted small">This compaction has no ledger to check against.</p>
      )}
    </section>
  );
}

/** The last request sent before a compaction and the first after it that led to a model call. */
function requestsAround(
  series: readonly Measurement[],
  eventSeq: number,
): { before: Measurement | null; after: Measurement | null } {
  const billed = series.filter((point) => point.cost);
  return {
    before: billed.filter((point) => point.eventSeq < eventSeq).at(-1) ?? null,
    after: billed.find((point) => point.eventSeq > eventSeq) ?? null,
  };
}

/** "last before, step 12: 3,456 (4,001), 2,900 read from cache" for a billed request. */
function billedRequest(label: string, point: Measurement): string {
  const cost = point.cost;
  if (!cost) return `${label}, step ${point.step}: not billed`;
  return `${label}, step ${point.step}: ${formatBilled(cost.billed.openai)} (${formatBilled(cost.billed.anthropic)}), ${formatBilled(cost.cacheRead)} of its input read from cache`;
}

function aroundText(around: { before: Measurement | null; after: Measurement | null } | null): string {
  if (!around || (!around.before && !around.after)) return "no billed request recorded around it";
  return [
    around.before ? billedRequest("last request before", around.before) : "no request before it was billed",
    around.after ? billedRequest("first request after", around.after) : "no request after it yet",
  ].join("; ");
}

const REASON_TEXT = {
  must: "the deterministic stages (collapse, truncate, microcompact) left the request over the trigger",
  cheaper: "the cost model found a summary cheaper over the coming calls than the deterministic path",
} as const;

function CostSection({
  detail,
  notice,
  around,
  cost,
}: {
  detail: CompactionDetail;
  notice: CompactionNotice | null;
  around: { before: Measurement | null; after: Measurement | null } | null;
  cost: ThreadCost | null;
}) {
  const economy = notice?.economy;
  const summary = economy?.summaryCost;
  const shrink = detail.tokensBefore - detail.tokensAfter;
  const plainSaved = cost ? plainSaving(cost) : null;
  return (
    <section aria-labelledby="diff-cost-title">
      <h3 id="diff-cost-title">Cost and savings of this compaction</h3>
      <p className="muted small">
        Billed-equivalent tokens: one uncached input token is 1, a cache read 0.1, an output token 4
        (OpenAI-style; Anthropic-style in brackets).
      </p>
      <dl className="diff-cost small" data-testid="diff-cost">
        <dt>Why it ran</dt>
        <dd data-testid="diff-cost-reason">
          {economy?.reason ? REASON_TEXT[economy.reason] : TRIGGER_TEXT[detail.trigger]}
        </dd>
        <dt>Saving the cost model expected</dt>
        <dd data-testid="diff-cost-expected">
          {economy?.expectedSaving === undefined
            ? "not recorded (a manual or overflow compaction, or an older server)"
            : `${formatBilled(economy.expectedSaving)} over the calls until the next trigger${economy.expectedSaving < 0 ? " (a loss the must rule accepts)" : ""}`}
        </dd>
        <dt>Summary call</dt>
        <dd data-testid="diff-cost-summary">
          {summary
            ? `${formatBilled(summary.billed.openai)} (${formatBilled(summary.billed.anthropic)}): ${formatBilled(summary.cacheRead)} input read from cache, ${formatBilled(summary.uncached)} not, ${formatBilled(summary.output)} output${economy?.summaryForm ? `; ${economy.summaryForm === "continuation" ? "the agent's own request continued (its prefix cached)" : "a standalone request"}` : ""}${summary.source === "estimate" ? " (estimated)" : ""}`
            : economy?.prepared
              ? "none at this step: the summary was prepared in the background before the trigger"
              : "not recorded"}
        </dd>
        <dt>Request size</dt>
        <dd data-testid="diff-cost-size">
          {formatTokens(detail.tokensBefore)} → {formatTokens(detail.tokensAfter)} tokens (
          {detail.tokensBefore > 0 ? percentChange(detail.tokensBefore, detail.tokensAfter) : "–"}):{" "}
          {shrink >= 0
            ? `${formatBilled(shrink)} fewer tokens in every request until the next compaction`
            : `${formatBilled(-shrink)} more (restored files)`}
        </dd>
        <dt>Requests around it</dt>
        <dd data-testid="diff-cost-around">{aroundText(around)}</dd>
        <dt>Plain strategy</dt>
        <dd data-testid="diff-cost-plain">
          {cost?.plain && plainSaved !== null
            ? `no figure for one compaction; for the whole thread so far, input and summaries ${formatBilled(cost.compared.openai)} against ${formatBilled(cost.plain.compared.openai)} with plain compaction (one summary at 75 %, ${cost.plain.compactions} compaction${cost.plain.compactions === 1 ? "" : "s"}): ${plainSaved}`
            : "not available for this thread"}
        </dd>
      </dl>
    </section>
  );
}
