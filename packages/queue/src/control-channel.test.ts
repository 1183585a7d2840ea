import { EVENT_WAIT } from "@longrun/testing";
import { describe, expect, it, vi } from "vitest";
import { createMemoryBus } from "./bus.ts";
import { CancelRegistry, publishCancel } from "./control-channel.ts";

describe("CancelRegistry", () => {
  it("aborts the steps of a run when a cancel arrives on the control channel", async () => {
    const bus = createMemoryBus();
    const registry = new CancelRegistry();
    await registry.start(bus);
    const parent = new AbortController();
    const target = registry.track("run-1", parent.signal);
    const other = registry.track("run-2", parent.signal);
    await publishCancel(bus, "run-1");
    await vi.waitFor(() => expect(target.signal.aborted).toBe(true), EVENT_WAIT);
    expect(other.signal.aborted).toBe(false);
    target.done();
    other.done();
    await registry.close();
    await bus.close();
  });

  it("aborts a tracked step when the job's own signal aborts, and forgets finished steps", async () => {
    const bus = createMemoryBus();
    const registry = new CancelRegistry();
    await registry.start(bus);
    const parent = new AbortController();
    const tracked = registry.track("run-1", parent.signal);
    parent.abort(new Error("shutdown"));
    expect(tracked.signal.aborted).toBe(true);
    expect(registry.trackedRuns).toBe(1);
    tracked.done();
    expect(registry.trackedRuns).toBe(0);
    // A finished step is forgotten: a late cancel for its run reaches nothing, and a new step of the
    // same run starts with a live signal.
    await publishCancel(bus, "run-1");
    const next = registry.track("run-1", new AbortController().signal);
    await new Promise((resolve) => queueMicrotask(() => resolve(undefined)));
    expect(next.signal.aborted).toBe(false);
    next.done();
    await registry.close();
    await bus.close();
  });

  it("ignores a control message that does not parse, and keeps listening", async () => {
    const errors: unknown[] = [];
    const bus = createMemoryBus({ onError: (error) => errors.push(error) });
    const registry = new CancelRegistry();
    await registry.start(bus);
    const tracked = registry.track("run-1", new AbortController().signal);
    // A forged message from an older or broken process: typed publishing forbids it, so cast here.
    await bus.publish("control", { type: "explode" } as never);
    await vi.waitFor(() => expect(errors).toHaveLength(1), EVENT_WAIT);
    expect(tracked.signal.aborted).toBe(false);
    await publishCancel(bus, "run-1");
    await vi.waitFor(() => expect(tracked.signal.aborted).toBe(true), EVENT_WAIT);
    tracked.done();
    await registry.close();
    await bus.close();
  });
});
