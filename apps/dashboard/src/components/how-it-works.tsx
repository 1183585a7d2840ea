/** A short tour of what the thread view shows, for the first visit. */
export function HowItWorks() {
  return (
    <section className="panel how-it-works" data-testid="how-it-works">
      <h2>What you will see</h2>
      <ol>
        <li>
          <strong>Agents</strong>: the root agent and any sub-agent teams it spawns, with live status
          (running, waiting for approval, compacting, completed, failed, context exhausted).
        </li>
        <li>
          <strong>Context gauge</strong>: the tokens the model will receive next against the window. Past the{" "}
          <span className="legend-trigger">trigger line</span> (by default 66 % of the window) the older part
          of the conversation is summarized; the chart marks each{" "}
          <span className="legend-compaction">compaction</span>.
        </li>
        <li>
          <strong>Transcript</strong>: every message is kept; compaction never rewrites it. Notices show what
          each compaction did (tokens before → after, what the cheap stages saved) and link to the compacted
          history.
        </li>
        <li>
          <strong>Next request</strong>: exactly what the model gets now: system prompt, summary, restored
          files, the pinned task and the recent messages verbatim.
        </li>
        <li>
          <strong>Operations</strong>: workers, queues, and the per-agent circuit breaker that stops a failing
          summarizer from retrying forever.
        </li>
      </ol>
    </section>
  );
}
