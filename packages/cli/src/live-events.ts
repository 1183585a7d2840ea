import type { Bus } from "@longrun/queue";
import { EVENTS_CHANNEL } from "@longrun/runtime";

/** One bus subscription shared by every local listener (gateway sessions, metrics). */
export async function createLiveEvents(bus: Bus) {
  const listeners = new Set<(event: unknown) => void>();
  const unsubscribe = await bus.subscribe(EVENTS_CHANNEL, (event) => {
    for (const listener of [...listeners]) listener(event);
  });
  return {
    subscribe(handler: (event: unknown) => void) {
      listeners.add(handler);
      return () => {
        listeners.delete(handler);
      };
    },
    close: unsubscribe,
  };
}
