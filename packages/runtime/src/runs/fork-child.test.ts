import type { ChatMessage } from "@longrun/protocol";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createHarness, type Harness } from "../harness.test-helper.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const BRIEF = "Double-check the ledger module and report.";

describe("a forked sub-agent after its first compaction", () => {
  it("keeps the system prompt at the head of every request once its inherited prefix is folded", async () => {
    harness = await createHarness({ simSteps: 200, maxInputTokens: 8_000 });
    const { rootAgentId, runId } = await harness.startThread("Survey the warehouse service in depth.");
    await harness.waitForEvent(
      (event) => event.type === "compaction.completed" && event.agentId === rootAgentId,
    );
    const [child] = await harness.coordinator.spawnFromApi(rootAgentId, runId, [
      { name: "fork-child", brief: BRIEF, inherit: "fork" },
    ]);
    expect(child?.inherit).toBe("fork");
    // On purpose, not by chance: wait for the child's own compaction (the fold of the prefix) and for
    // the first request it sends after it.
    const folded = await harness.waitForEvent(
      (event) => event.type === "compaction.completed" && event.agentId === child?.id,
    );
    const compaction = await harness.store.compactions.latest(child?.id ?? "");
    expect(compaction?.includesPrefix).toBe(true);
    const childRequests = () =>
      harness!.sim.log.entries.filter(
        (entry) =>
          !entry.summary &&
          entry.at > folded.at &&
          ((entry.body as { messages?: ChatMessage[] })?.messages ?? []).some((message) =>
            String(message.content ?? "").includes(BRIEF),
          ),
      );
    await vi.waitFor(() => expect(childRequests().length).toBeGreaterThan(0), {
      timeout: 60_000,
      interval: 50,
    });
    const [request] = childRequests();
    const messages = (request?.body as { messages?: ChatMessage[] } | undefined)?.messages ?? [];
    expect(messages[0]?.role).toBe("system");
    // The child's pinned brief comes before its summary (the prefix cache keeps serving it).
    expect(
      messages
        .slice(1, 3)
        .map((message) => String(message.content))
        .join("\n"),
    ).toContain("[Context summary");
    await harness.runControl.cancel(runId);
  }, 180_000);
});
