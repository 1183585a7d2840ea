import type { Projection } from "@longrun/compaction";
import { SpanStatusCode, trace } from "@opentelemetry/api";
import type { CompactionOutcome, LeasedCompactJob } from "../compaction/compaction-attempt.ts";
import { idAttributes, inSpan } from "./spans.ts";

/**
 * One compaction as a span: trigger and strategy first, then how it ended — tokens before and after and
 * what it saved, or why it did not. Its stages (the summary call, the offload, the record) are children.
 * A failed summary or an exhausted context sets status error; a breaker that blocked it does not.
 */
export function compactionSpan(
  job: LeasedCompactJob,
  work: () => Promise<CompactionOutcome>,
): Promise<CompactionOutcome> {
  return inSpan(
    "longrun.compaction",
    {
      attributes: {
        ...idAttributes(job),
        "longrun.compaction.trigger": job.trigger,
        "longrun.compaction.strategy": job.strategy ?? "partial",
      },
    },
    async (span) => {
      const outcome = await work();
      span.setAttribute("longrun.compaction.outcome", outcome.kind);
      if (outcome.kind === "compacted") {
        span.setAttributes({
          "longrun.compaction.id": outcome.compactionId,
          "longrun.compaction.tokens_before": outcome.tokensBefore,
          "longrun.compaction.tokens_after": outcome.tokensAfter,
          "longrun.compaction.saved_tokens": Math.max(0, outcome.tokensBefore - outcome.tokensAfter),
        });
      } else if (outcome.kind === "failed" || outcome.kind === "exhausted") {
        span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.reason });
      } else {
        span.setAttribute("longrun.compaction.reason", outcome.reason);
      }
      return outcome;
    },
  );
}

/** What the deterministic stages saved before the summary (collapse, truncate, microcompact), on the span in force. */
export function noteProjection(projection: Projection): void {
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return;
  span.setAttributes({
    "longrun.context.raw_tokens": projection.rawTokens,
    "longrun.context.projected_tokens": projection.tokens,
    "longrun.compaction.saved.collapse": projection.saved.collapse,
    "longrun.compaction.saved.truncate": projection.saved.truncate,
    "longrun.compaction.saved.microcompact": projection.saved.microcompact,
  });
}

/** One stage of a compaction (offload, record) as a child span. */
export function compactionStage<T>(stage: string, work: () => Promise<T>): Promise<T> {
  return inSpan(`longrun.compaction.${stage}`, {}, () => work());
}
