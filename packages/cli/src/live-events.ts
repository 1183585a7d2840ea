import type { BusEvent } from "@longrun/protocol";
import type { Bus } from "@longrun/queue";

/** One bus subscription shared by every local listener (socket sessions, metrics); events arrive parsed. */
export async function createLiveEvents(bus: Bus) {
  const listeners = new Set<(event: BusEvent) => void>();
  const unsubscribe = await bus.subscribe("events", (event) => {
    for (const listener of [...listeners]) listener(event);
  });
  return {
    subscribe(handler: (event: BusEvent) => void) {
      listeners.add(handler);
      return () => {
        listeners.delete(handler);
      };
    },
    close: unsubscribe,
  };
}
