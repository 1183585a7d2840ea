import { createMemoryBus } from "@longrun/queue";
import { describe, expect, it, vi } from "vitest";
import { CancelRegistry, CONTROL_CHANNEL } from "./cancel-registry.ts";

describe("CancelRegistry", () => {
  it("aborts the steps of a run when a cancel arrives on the control channel", async () => {
    const bus = createMemoryBus();
    const registry = new CancelRegistry();
    await registry.start(bus);
    const parent = new AbortController();
    const target = registry.track("run-1", parent.signal);
    const other = registry.track("run-2", parent.signal);
    await bus.publish(CONTROL_CHANNEL, { type: "cancel", runId: "run-1" });
    await vi.waitFor(() => expect(target.signal.aborted).toBe(true));
    expect(other.signal.aborted).toBe(false);
    target.done();
    other.done();
    await registry.close();
    await bus.close();
  });

  it("aborts a tracked step when the job's own signal aborts (timeout, shutdown)", async () => {
    const bus = createMemoryBus();
    const registry = new CancelRegistry();
    await registry.start(bus);
    const parent = new AbortController();
    const tracked = registry.track("run-1", parent.signal);
    parent.abort(new Error("shutdown"));
    expect(tracked.signal.aborted).toBe(true);
    tracked.done();
    // A finished step is forgotten: a late cancel for its run touches nothing.
    await bus.publish(CONTROL_CHANNEL, { type: "cancel", runId: "run-1" });
    await registry.close();
    await bus.close();
  });
});
