import type { LongrunEvent, NewEvent } from "@longrun/protocol";

/**
 * Where the runtime reports what happens. `emit` persists the event (assigning its seq) and then
 * fans it out; `transient` fans out without persisting (token deltas).
 */
export interface EventSink {
  emit(event: NewEvent): Promise<LongrunEvent>;
  transient(event: NewEvent): void;
}
