import type { BusEvent, Logger, LongrunEvent, NewEvent } from "@longrun/protocol";
import type { Bus } from "@longrun/queue";
import type { Store } from "@longrun/store";
import { LRUCache } from "lru-cache";
import type { EventSink } from "./event-sink.ts";

/** Threads whose tenant this process remembers (a thread's tenant never changes). */
const KNOWN_TENANTS = 10_000;

/** Events an operator follows a run by: logged at info, every other event at debug. */
const RUN_LIFECYCLE = new Set(["run.started", "run.completed", "run.failed", "run.cancelled", "run.stuck"]);

/** One line per persisted event, in the process that emitted it (so N servers do not log it N times). */
function logEvent(log: Logger, event: LongrunEvent, tenantId: string): void {
  const fields = {
    tenantId,
    threadId: event.threadId,
    agentId: event.agentId,
    runId: event.runId,
    seq: event.seq,
    event: event.type,
  };
  if (!RUN_LIFECYCLE.has(event.type)) log.debug(fields, event.type);
  else if (event.type === "run.failed" || event.type === "run.stuck")
    log.warn({ ...fields, data: event.data }, event.type);
  else log.info(fields, event.type);
}

/**
 * Events are persisted first (the store assigns the per-thread seq), then published, so a subscriber
 * can always fill a gap from the log. Deltas are published without being persisted.
 */
export function createPersistingEventSink(
  store: Store,
  bus: Pick<Bus, "publish">,
  onEvent?: (event: LongrunEvent, tenantId: string) => void,
  log?: Logger,
): EventSink {
  const tenants = new LRUCache<string, string>({ max: KNOWN_TENANTS });
  async function tenantOf(threadId: string): Promise<string> {
    const known = tenants.get(threadId);
    if (known) return known;
    const thread = await store.threads.get(threadId);
    const tenantId = thread?.tenantId ?? "";
    if (tenantId) tenants.set(threadId, tenantId);
    return tenantId;
  }
  // Live fan-out is best effort: the event is already in the log, and a subscriber fills any gap from
  // it. A bus that is down (Redis unreachable) must not fail the write that already committed.
  const publishOne = async (stored: LongrunEvent) => {
    // The thread's row is read once and cached. Unreadable (the store failing), the event still counts,
    // under no tenant, and is not published: a subscriber fills the gap from the log.
    const tenantId = await tenantOf(stored.threadId).catch(() => null);
    onEvent?.(stored, tenantId ?? "");
    if (tenantId === null) return;
    try {
      const published: BusEvent = { ...stored, tenantId };
      if (log) logEvent(log, stored, tenantId);
      await bus.publish("events", published);
    } catch {
      // Reported by the bus's connection health, once per outage.
    }
  };
  return {
    async emit(event: NewEvent) {
      const stored = await store.events.append(event);
      await publishOne(stored);
      return stored;
    },
    async publish(events) {
      for (const event of events) await publishOne(event);
    },
    transient(event: NewEvent) {
      const tenantId = tenants.get(event.threadId);
      if (!tenantId) return;
      // seq 0 marks a transient event: never persisted, never part of resume or de-duplication.
      const published = { ...event, seq: 0, at: Date.now(), tenantId } as BusEvent;
      bus.publish("events", published).catch(() => undefined);
    },
  };
}
