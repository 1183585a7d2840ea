import type { BusEvent, LongrunEvent, NewEvent } from "@longrun/protocol";
import type { Bus } from "@longrun/queue";
import type { Store } from "@longrun/store";
import { LRUCache } from "lru-cache";
import type { EventSink } from "./event-sink.ts";

/** Threads whose tenant this process remembers (a thread's tenant never changes). */
const KNOWN_TENANTS = 10_000;

/**
 * Events are persisted first (the store assigns the per-thread seq), then published, so a subscriber
 * can always fill a gap from the log. Deltas are published without being persisted.
 */
export function createPersistingEventSink(
  store: Store,
  bus: Pick<Bus, "publish">,
  onEvent?: (event: LongrunEvent) => void,
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
    onEvent?.(stored);
    try {
      const published: BusEvent = { ...stored, tenantId: await tenantOf(stored.threadId) };
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
