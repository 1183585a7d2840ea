import type { LongrunEvent, NewEvent } from "@longrun/protocol";
import type { Store } from "@longrun/store";
import type { EventSink } from "./event-sink.ts";

/** The fan-out channel every server instance listens on. */
export const EVENTS_CHANNEL = "events";

/** An event as it travels between processes: the tenant rides along so gateways can scope it. */
export type PublishedEvent = LongrunEvent & { tenantId: string };

interface Publisher {
  publish(channel: string, message: unknown): Promise<void> | void;
}

/**
 * Events are persisted first (the store assigns the per-thread seq), then published, so a subscriber
 * can always fill a gap from the log. Deltas are published without being persisted.
 */
export function createPersistingEventSink(
  store: Store,
  bus: Publisher,
  onEvent?: (event: LongrunEvent) => void,
): EventSink {
  const tenants = new Map<string, string>();
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
      const published: PublishedEvent = { ...stored, tenantId: await tenantOf(stored.threadId) };
      await bus.publish(EVENTS_CHANNEL, published);
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
      const published = { ...event, seq: 0, at: Date.now(), tenantId };
      Promise.resolve(bus.publish(EVENTS_CHANNEL, published)).catch(() => undefined);
    },
  };
}
