import { DEFAULT_OUTPUT_RATIO, plainBaseline, RequestPartCounter, thresholds } from "@longrun/compaction";
import type { CallCost, ThreadCost } from "@longrun/protocol";
import type { RuntimeDeps } from "../runtime-deps.ts";
import { toolsFor } from "../step/agent-tools.ts";

/** Events that carry what a model call cost. */
const COST_EVENTS = ["context.measured", "compaction.completed", "compaction.prepared"] as const;
const PAGE = 1_000;

type ByProfile = ThreadCost["billed"];
const zero = (): ByProfile => ({ openai: 0, anthropic: 0 });
const round = (value: number) => Math.round(value * 10) / 10;
const rounded = (figures: ByProfile): ByProfile => ({
  openai: round(figures.openai),
  anthropic: round(figures.anthropic),
});

/**
 * What a thread's model calls cost so far — summed from the cost each step's `context.measured` and
 * each summary's `compaction.completed` / `compaction.prepared` event carries — beside what the plain
 * strategy would have cost on each agent's messages (computed now, by the same pricing replay uses).
 * Events dropped by retention are not counted; a fork's inherited prefix is priced on neither side.
 */
export async function threadCost(
  deps: Pick<RuntimeDeps, "store" | "tools" | "tokenizer">,
  threadId: string,
): Promise<ThreadCost> {
  const { store } = deps;
  const outputRatio = DEFAULT_OUTPUT_RATIO;
  const calls = { steps: 0, summaries: 0 };
  const tokens = { cacheRead: 0, uncached: 0, output: 0 };
  const billed = zero();
  const summaries = zero();
  const compared = zero();
  const sources = new Set<CallCost["source"]>();
  const add = (cost: CallCost, purpose: "step" | "summary") => {
    sources.add(cost.source);
    tokens.cacheRead += cost.cacheRead;
    tokens.uncached += cost.uncached;
    tokens.output += cost.output;
    const answer = purpose === "step" ? cost.output * outputRatio : 0;
    for (const profile of ["openai", "anthropic"] as const) {
      billed[profile] += cost.billed[profile];
      compared[profile] += cost.billed[profile] - answer;
      if (purpose === "summary") summaries[profile] += cost.billed[profile];
    }
    if (purpose === "step") calls.steps++;
    else calls.summaries++;
  };
  for (let after = 0; ; ) {
    const page = await store.events.after(threadId, after, PAGE, COST_EVENTS);
    for (const event of page) {
      if (event.type === "context.measured" && event.data.cost) add(event.data.cost, "step");
      else if (
        (event.type === "compaction.completed" || event.type === "compaction.prepared") &&
        event.data.summaryCost
      )
        add(event.data.summaryCost, "summary");
    }
    if (page.length < PAGE) break;
    after = page[page.length - 1]?.seq ?? after;
  }

  const thread = await store.threads.get(threadId);
  const plain =
    thread && !thread.modelProfile.gateway
      ? await plainCost(deps, threadId, thread.modelProfile, outputRatio)
      : null;
  return {
    threadId,
    outputRatio,
    calls,
    tokens,
    billed: rounded(billed),
    summaries: rounded(summaries),
    compared: rounded(compared),
    plain: plain && { ...plain, compared: rounded(plain.compared) },
    saved:
      plain &&
      rounded({
        openai: plain.compared.openai - compared.openai,
        anthropic: plain.compared.anthropic - compared.anthropic,
      }),
    source:
      sources.size === 0 ? "none" : sources.size > 1 ? "mixed" : ([...sources][0] as CallCost["source"]),
  };
}

/** The plain strategy over every agent's messages, priced as replay prices it. */
async function plainCost(
  deps: Pick<RuntimeDeps, "store" | "tools" | "tokenizer">,
  threadId: string,
  profile: NonNullable<Awaited<ReturnType<RuntimeDeps["store"]["threads"]["get"]>>>["modelProfile"],
  outputRatio: number,
): Promise<{ compared: ByProfile; compactions: number; summaryCalls: number }> {
  const window = profile.maxInputTokens;
  const limits = thresholds(profile);
  const counter = new RequestPartCounter(deps.tokenizer);
  const total = { compared: zero(), compactions: 0, summaryCalls: 0 };
  for (const agent of await deps.store.agents.listByThread(threadId)) {
    const messages = await deps.store.messages.list(agent.id, { afterSeq: -1 });
    const system =
      messages[0]?.role === "system" && typeof messages[0].content === "string" ? messages[0].content : null;
    const walk = plainBaseline({
      systemPrompt: system,
      messages,
      firstIndex: system === null ? 0 : 1,
      tools: toolsFor(deps, agent),
      tokenizer: deps.tokenizer,
      counter,
      windowTokens: window ?? limits.limitTokens,
      limitTokens: limits.limitTokens,
      outputRatio,
    });
    for (const point of walk.points) {
      for (const call of [point.main, point.summary]) {
        if (!call) continue;
        total.compared.openai += call.openai;
        total.compared.anthropic += call.anthropic;
      }
      if (point.summary) total.summaryCalls++;
    }
    total.compactions += walk.compactions.length;
  }
  return total;
}
