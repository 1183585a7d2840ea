/** A writer whose held frames a batch writes out at the end of the run. */
export interface BatchMember {
  /** Writes everything held (uncorks). */
  release(): void;
}

/**
 * Coalesces socket writes within one synchronous run of the event loop (one event's fan-out, a replay
 * page, a live backlog). A writer sends the first frame of a run at once — a lone frame costs nothing
 * extra — and corks its socket for the second; right after the run (process.nextTick, before any I/O)
 * every corked writer is released, so the rest of the run leaves in one `writev` per socket instead of
 * one per frame.
 */
export class WriteBatch {
  /** Number of the current run; advances after each run in which something was written. */
  run = 0;
  private members: BatchMember[] = [];
  private scheduled = false;
  private readonly endRun = (): void => {
    this.scheduled = false;
    this.run += 1;
    const members = this.members;
    this.members = [];
    for (const member of members) member.release();
  };

  /** Called by a writer that wrote in the current run. */
  touch(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    process.nextTick(this.endRun);
  }

  /** Called by a writer that just corked its socket; it is released when the run ends. */
  enlist(member: BatchMember): void {
    this.members.push(member);
    this.touch();
  }
}
