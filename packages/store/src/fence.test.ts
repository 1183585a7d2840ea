import { isLeaseLost, LongrunError } from "@longrun/protocol";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempStore } from "./__fixtures__/temp-store.ts";
import type { Store } from "./open-store.ts";

let store: Store;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ store, cleanup } = await tempStore());
});
afterEach(async () => {
  await cleanup();
});

describe("fenced appends", () => {
  it("records the newest fence and refuses writers holding an older one", async () => {
    const agent = await store.agents.create({ threadId: "th", name: "a" });
    await store.messages.append(agent.id, { role: "user", content: "by lease 1" }, { fence: 1 });
    expect((await store.agents.get(agent.id))?.fence).toBe(1);

    // Lease 1 expired; lease 2 was granted and appended.
    await store.messages.appendMany(agent.id, [{ role: "assistant", content: "by lease 2" }], { fence: 2 });
    expect((await store.agents.get(agent.id))?.fence).toBe(2);

    const stale = await store.messages
      .append(agent.id, { role: "assistant", content: "late write by lease 1" }, { fence: 1 })
      .catch((error: unknown) => error);
    expect(LongrunError.isInstance(stale)).toBe(true);
    expect(stale).toMatchObject({ code: "conflict", message: "lease lost: fence 1 < 2" });
    expect((stale as LongrunError).details).toMatchObject({ leaseLost: true, fence: 1, currentFence: 2 });
    expect(isLeaseLost(stale)).toBe(true);
    await expect(
      store.messages.appendMany(agent.id, [{ role: "assistant", content: "x" }], { fence: 0 }),
    ).rejects.toSatisfy(isLeaseLost);

    // Nothing from the stale holder reached the log; the current holder keeps appending.
    await store.messages.append(agent.id, { role: "user", content: "still lease 2" }, { fence: 2 });
    const contents = (await store.messages.list(agent.id)).map((message) => message.content);
    expect(contents).toEqual(["by lease 1", "by lease 2", "still lease 2"]);
    expect(await store.messages.count(agent.id)).toBe(3);
  });

  it("appends without a fence are not fenced, and a fence on an unknown agent is not_found", async () => {
    await store.messages.append("no-agent-row", { role: "user", content: "free" });
    await expect(
      store.messages.append("no-agent-row", { role: "user", content: "fenced" }, { fence: 1 }),
    ).rejects.toMatchObject({ code: "not_found" });
    expect(isLeaseLost(new LongrunError("conflict", "other"))).toBe(false);
  });

  it("a new holder claims the fence before it reads: an older holder still running writes nothing after", async () => {
    const agent = await store.agents.create({ threadId: "th", name: "a" });
    const run = await store.runs.create({ threadId: "th", agentId: agent.id, kind: "message" });
    await store.messages.append(agent.id, { role: "user", content: "task" }, { fence: 4 });
    const probe = await store.agents.claim(agent.id, 5, run.id);
    expect(probe).toEqual({
      agentStatus: "idle",
      fence: 5,
      lastSeq: 0,
      compactionId: null,
      stateUpdatedAt: 0,
      runStatus: "queued",
      runKind: "message",
      runInterruptRequestedAt: null,
    });
    // Holder 4 has not appended since; it is too late now.
    await expect(
      store.messages.append(agent.id, { role: "assistant", content: "late" }, { fence: 4 }),
    ).rejects.toSatisfy(isLeaseLost);
    // A stale claim is refused the same way, an unknown agent is not_found.
    await expect(store.agents.claim(agent.id, 3, run.id)).rejects.toSatisfy(isLeaseLost);
    await expect(store.agents.claim("nobody", 9, run.id)).rejects.toMatchObject({ code: "not_found" });
    expect(await store.agents.probe(agent.id, run.id)).toEqual(probe);
  });
});
