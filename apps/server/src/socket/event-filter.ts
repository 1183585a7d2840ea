import { eventTypeMatches, type LongrunEvent, type SubscribeFrame } from "@longrun/protocol";

/** A subscription's `types` and `agentId` filter, with each type's verdict computed once. */
export class EventFilter {
  /** No type or agent filter: every event of a visible thread matches. */
  private readonly everything: boolean;
  private readonly admitted = new Map<string, boolean>();

  constructor(private readonly frame: Pick<SubscribeFrame, "types" | "agentId">) {
    this.everything = frame.agentId === undefined && (frame.types === undefined || frame.types.length === 0);
  }

  /** True when the subscription wants the event. */
  matches(event: LongrunEvent): boolean {
    if (this.everything) return true;
    if (this.frame.agentId !== undefined && event.agentId !== this.frame.agentId) return false;
    let admitted = this.admitted.get(event.type);
    if (admitted === undefined) {
      admitted = eventTypeMatches(event.type, this.frame.types);
      this.admitted.set(event.type, admitted);
    }
    return admitted;
  }
}
