import type { LongrunClient, SubscribeFilter, SubscriptionHandle } from "@longrun/client";
import type { LongrunEvent, StoredMessage } from "@longrun/protocol";

/** Events one subscription received, in arrival order, with a way to wait for one. */
export interface EventCollector {
  readonly events: LongrunEvent[];
  readonly handle: SubscriptionHandle;
  /** Resolves with the first received event that matches (already received ones count). */
  waitFor(match: (event: LongrunEvent) => boolean, timeoutMs?: number): Promise<LongrunEvent>;
}

/** Subscribes through the SDK and records every persisted event (transient deltas are left out). */
export function collectEvents(client: LongrunClient, filter: SubscribeFilter): EventCollector {
  const events: LongrunEvent[] = [];
  const waiters = new Set<{ match: (event: LongrunEvent) => boolean; resolve(event: LongrunEvent): void }>();
  const handle = client.subscribe(filter, {
    onEvent(event) {
      if (event.seq === 0) return;
      events.push(event);
      for (const waiter of [...waiters]) {
        if (!waiter.match(event)) continue;
        waiters.delete(waiter);
        waiter.resolve(event);
      }
    },
  });
  return {
    events,
    handle,
    waitFor(match, timeoutMs = 120_000) {
      const seen = events.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const waiter = {
          match,
          resolve(event: LongrunEvent) {
            clearTimeout(timer);
            resolve(event);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(
            new Error(`timed out: ${events.length} events received, last ${events.at(-1)?.type ?? "none"}`),
          );
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
  };
}

/** Every persisted event of a thread, read back over REST page by page. */
export async function readThreadEvents(client: LongrunClient, threadId: string): Promise<LongrunEvent[]> {
  const all: LongrunEvent[] = [];
  for (;;) {
    const page = await client.threads.events(threadId, { since: all.at(-1)?.seq ?? 0, limit: 1_000 });
    if (page.length === 0) return all;
    all.push(...page);
  }
}

/** Every fact of an agent, read back over REST page by page. */
export async function readFacts(client: LongrunClient, agentId: string): Promise<StoredMessage[]> {
  const all: StoredMessage[] = [];
  let afterSeq = -1;
  for (;;) {
    const page = await client.agents.messages(agentId, { afterSeq, limit: 500 });
    all.push(...page.messages);
    if (page.nextAfterSeq === null || page.messages.length === 0) return all;
    afterSeq = page.nextAfterSeq;
  }
}

/** Problems with one agent's facts: seq gaps or duplicates, unanswered or twice-answered tool calls. */
export function factProblems(facts: StoredMessage[]): string[] {
  const problems: string[] = [];
  facts.forEach((fact, index) => {
    if (fact.seq !== index) problems.push(`seq ${fact.seq} at position ${index}`);
  });
  if (new Set(facts.map((fact) => fact.id)).size !== facts.length) problems.push("duplicate message ids");
  const calls = facts.flatMap((fact) => (fact.role === "assistant" ? (fact.toolCalls ?? []) : []));
  const results = new Map<string, number>();
  for (const fact of facts) {
    if (fact.role === "tool" && fact.toolCallId)
      results.set(fact.toolCallId, (results.get(fact.toolCallId) ?? 0) + 1);
  }
  for (const call of calls) {
    const count = results.get(call.id) ?? 0;
    if (count !== 1) problems.push(`tool call ${call.id} (${call.function.name}) answered ${count} times`);
  }
  const callIds = new Set(calls.map((call) => call.id));
  for (const id of results.keys()) if (!callIds.has(id)) problems.push(`tool result ${id} without a call`);
  return problems;
}

/** Seqs that are missing or repeated in a list that should be exactly 1..n. */
export function seqProblems(seqs: number[]): string[] {
  const problems: string[] = [];
  seqs.forEach((seq, index) => {
    if (seq !== index + 1) problems.push(`seq ${seq} at position ${index} (expected ${index + 1})`);
  });
  return problems.slice(0, 10);
}
