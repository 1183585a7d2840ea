import type { LongrunEvent, NewEvent } from "@longrun/protocol";

/**
 * Where the runtime reports what happens. `emit` persists the event (assigning its seq) and then
 * fans it out; `publish` fans out events already persisted inside a fact's own transaction;
 * `transient` fans out without persisting (token deltas).
 */
export interface EventSink {
  emit(event: NewEvent): Promise<LongrunEvent>;
  publish(events: readonly LongrunEvent[]): Promise<void>;
  transient(event: NewEvent): void;
}
