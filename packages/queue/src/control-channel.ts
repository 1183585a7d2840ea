import { trace } from "@opentelemetry/api";
import type { Bus } from "./bus.ts";
import { activeTraceCarrier, traceContextOf } from "./trace-context.ts";

const tracer = trace.getTracer("longrun-queue");

/**
 * Publishes a cancel on the control channel, so whichever worker runs a step of the run aborts it; the
 * cancel carries its request's trace context, so the worker's abort shows in the same trace.
 */
export function publishCancel(bus: Bus, runId: string): Promise<void> {
  return bus.publish("control", { type: "cancel", runId, ...activeTraceCarrier() });
}

/**
 * The control channel's receiving end in a worker: maps run ids to the AbortControllers of the jobs
 * running them in this process, so a cancel issued on any server instance reaches the running step.
 */
export class CancelRegistry {
  private readonly running = new Map<string, Set<AbortController>>();
  private unsubscribe: (() => Promise<void>) | null = null;

  /** Listens on the control channel; resolves once the subscription is live. */
  async start(bus: Bus): Promise<void> {
    // The bus parses every control message against its schema before it gets here.
    this.unsubscribe = await bus.subscribe("control", (control) => {
      if (control.type !== "cancel") return;
      if (!control.trace) return this.abort(control.runId);
      // One short span in the sender's trace: which process received the cancel, and how many jobs it stopped.
      const span = tracer.startSpan(
        "longrun.run.cancel.received",
        { attributes: { "longrun.run.id": control.runId } },
        traceContextOf(control.trace),
      );
      span.setAttribute("longrun.jobs.aborted", this.running.get(control.runId)?.size ?? 0);
      this.abort(control.runId);
      span.end();
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

  /** Jobs of runs this process is running now (each finished job is forgotten). */
  get trackedRuns(): number {
    return this.running.size;
  }

  abort(runId: string): void {
    for (const controller of this.running.get(runId) ?? []) controller.abort(new Error("run cancelled"));
  }

  async close(): Promise<void> {
    await this.unsubscribe?.();
  }
}
