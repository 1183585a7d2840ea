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

const row = (compactionKey: string) => ({
  agentId: "a",
  baseCompactionId: null,
  compactionKey,
  cutoffMessageId: "m7",
  form: "continuation" as const,
  tokensAt: 4_800,
  preparedAt: 1_000,
});

describe("prepared summaries", () => {
  it("are recorded without text while made, then get it; one per agent, a newer start replaces the older", async () => {
    expect(await store.preparedSummaries.get("a")).toBeNull();
    await store.preparedSummaries.start(row("k1"));
    expect(await store.preparedSummaries.get("a")).toEqual({ ...row("k1"), summaryText: null });
    expect(await store.preparedSummaries.ready("a", "k1", "The parser was surveyed.")).toBe(true);
    expect((await store.preparedSummaries.get("a"))?.summaryText).toBe("The parser was surveyed.");

    // A newer one replaces it: the older job's text is no longer kept.
    await store.preparedSummaries.start({ ...row("k2"), cutoffMessageId: "m9" });
    expect(await store.preparedSummaries.ready("a", "k1", "late")).toBe(false);
    expect(await store.preparedSummaries.get("a")).toMatchObject({ compactionKey: "k2", summaryText: null });
  });

  it("are removed by key (another job's row stays) or whole; ready after removal keeps nothing", async () => {
    await store.preparedSummaries.start(row("k1"));
    await store.preparedSummaries.remove("a", "other");
    expect(await store.preparedSummaries.get("a")).not.toBeNull();
    await store.preparedSummaries.remove("a", "k1");
    expect(await store.preparedSummaries.get("a")).toBeNull();
    expect(await store.preparedSummaries.ready("a", "k1", "text")).toBe(false);
    await store.preparedSummaries.start(row("k3"));
    await store.preparedSummaries.remove("a");
    expect(await store.preparedSummaries.get("a")).toBeNull();
  });
});
