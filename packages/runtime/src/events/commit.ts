import type { NewEvent } from "@longrun/protocol";
import type { UnitOfWork } from "@longrun/store";
import type { RuntimeDeps } from "../runtime-deps.ts";

/** Queues an event to be persisted in the same transaction as the facts it describes. */
export type Announce = (event: NewEvent) => void;

/**
 * Writes facts and the events that describe them in one transaction, then publishes the events:
 * a crash leaves both or neither, and subscribers only ever hear of what is in the log.
 */
export async function commit<T>(
  deps: Pick<RuntimeDeps, "store" | "events">,
  work: (unit: UnitOfWork, announce: Announce) => Promise<T>,
): Promise<T> {
  const { result, events } = await deps.store.transact(async (unit) => {
    const pending: NewEvent[] = [];
    const result = await work(unit, (event) => pending.push(event));
    return { result, events: await unit.appendEvents(pending) };
  });
  await deps.events.publish(events);
  return result;
}
