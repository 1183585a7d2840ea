import { ControlMessage } from "@longrun/protocol";
import type { Bus } from "@longrun/queue";

export const CONTROL_CHANNEL = "control";

export { ControlMessage };

/**
 * Maps run ids to the AbortControllers of the steps running them in this process, fed by the
 * control channel so a cancel issued on any server instance reaches the worker running the step.
 */
export class CancelRegistry {
  private readonly running = new Map<string, Set<AbortController>>();
  private unsubscribe: (() => Promise<void>) | null = null;

  /** Listens on the control channel; resolves once the subscription is live. */
  async start(bus: Bus): Promise<void> {
    this.unsubscribe = await bus.subscribe(CONTROL_CHANNEL, (message) => {
      // Parsed on receipt like every message that crosses a process; anything else is ignored.
      const control = ControlMessage.safeParse(message);
      if (control.success && control.data.type === "cancel") this.abort(control.data.runId);
    });
  }

  /** A controller for one job of `runId`, also aborted when `parent` aborts. */
  track(runId: string, parent: AbortSignal): { signal: AbortSignal; done(): void } {
    const controller = new AbortController();
    const onParentAbort = () => controller.abort(parent.reason);
    if (parent.aborted) controller.abort(parent.reason);
    else parent.addEventListener("abort", onParentAbort, { once: true });
    const set = this.running.get(runId) ?? new Set();
    set.add(controller);
    this.running.set(runId, set);
    return {
      signal: controller.signal,
      done: () => {
        parent.removeEventListener("abort", onParentAbort);
        set.delete(controller);
        if (set.size === 0) this.running.delete(runId);
      },
    };
  }

  abort(runId: string): void {
    for (const controller of this.running.get(runId) ?? []) controller.abort(new Error("run cancelled"));
  }

  async close(): Promise<void> {
    await this.unsubscribe?.();
  }
}
