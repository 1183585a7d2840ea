import type { LongrunClient } from "@longrun/client";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type DashboardSession, openDashboardSession } from "./support/dashboard-session.ts";
import { NARROW, screenshot, UI_TIMEOUT, WIDE } from "./support/page-helpers.ts";
import type { BrowserServer } from "./support/servers.ts";
import { byTestId, openThread, waitForIdle } from "./support/watch-helpers.ts";

// A stuck run is flagged in the thread list, the thread view and the run history, and the flag clears
// when the run moves again.
//
// How the run gets stuck: no honest production path makes a run that nothing can move in an embedded
// server. The reconciler marks a run stuck only after recovering an agent at one log position three
// times with no job and no lease, and every job it issues does move a healthy agent (a step reads what is
// left from the log; the in-process queue loses jobs only when the process dies, and a restart re-issues
// them at once). So the test calls the runtime's own `markStuck` — the function the reconciler calls —
// on the server's runtime, so that the live `run.stuck` event reaches the page on the server's bus as it
// would in production. The run chosen is parked on an approval, which nothing moves until a person
// decides; the decision then moves it again, and the job runner itself emits `run.resumed`.

const TEST_TIMEOUT = 240_000;
const REASON = "marked stuck by the test: parked on an approval nobody decided, no job and no lease";

let session: DashboardSession | undefined;
let server: BrowserServer | undefined;
let client: LongrunClient;
let page: Page;
let pageErrors: string[] = [];

beforeAll(async () => {
  session = await openDashboardSession({ simDelayMs: 5, home: true });
  ({ server, client, page, pageErrors } = session);
}, 300_000);

afterAll(async () => {
  await session?.close();
}, 60_000);

describe("a stuck run", () => {
  it(
    "is flagged in the list, the thread and the run history, and the flag clears when the run moves",
    async () => {
      const thread = await client.threads.create({
        title: "Stuck one",
        model: "sim",
        simScript: "approval",
        simSteps: 6,
        maxInputTokens: 8000,
        task: "List the workspace files with a shell command, then report.",
      });
      const approval = await vi.waitFor(
        async () => {
          const pending = await client.approvals.pending();
          const found = pending.find((item) => item.threadId === thread.id);
          expect(found).toBeDefined();
          return found!;
        },
        { timeout: UI_TIMEOUT, interval: 100 },
      );
      const detail = await client.threads.get(thread.id);
      const run = detail.runs.find((candidate) => candidate.finishedAt === null);
      expect(run).toBeDefined();
      await openThread(page, thread.id);
      await page.locator(byTestId("approval-request")).waitFor();
      const item = page.locator(`${byTestId("thread-item")}[data-thread-id="${thread.id}"]`);
      expect(await item.getAttribute("data-stuck")).toBe("false");
      expect(await page.locator(byTestId("stuck-banner")).count()).toBe(0);

      await server!.instance().runtime.runControl.markStuck(run!, REASON);

      // The live event reaches the page: the list item, the thread header, the banner with its reason.
      await expect.poll(() => item.getAttribute("data-stuck"), { timeout: UI_TIMEOUT }).toBe("true");
      await item.locator(byTestId("thread-stuck-badge")).waitFor();
      await page.locator(`${byTestId("thread-view")} ${byTestId("thread-stuck-badge")}`).waitFor();
      const banner = page.locator(byTestId("stuck-banner"));
      await banner.waitFor();
      expect(await banner.textContent()).toContain(REASON);
      await page.locator(`${byTestId("run-history")} summary`).click();
      const entry = page.locator(`${byTestId("run-history-item")}[data-run-id="${run!.id}"]`);
      await expect.poll(() => entry.getAttribute("data-status")).toBe("stuck");
      expect(await entry.textContent()).toContain(`stuck: ${REASON}`);
      await screenshot(page, "stuck-wide");
      await page.setViewportSize(NARROW);
      await screenshot(page, "stuck-narrow");
      await page.setViewportSize(WIDE);

      // A reload shows the same from the snapshot (the thread list counts stuck runs on the server).
      await page.reload();
      await page
        .locator(`${byTestId("thread-view")}[data-thread-id="${thread.id}"][data-history-loaded="true"]`)
        .waitFor();
      expect(await item.getAttribute("data-stuck")).toBe("true");
      expect(await page.locator(byTestId("stuck-banner")).textContent()).toContain(REASON);

      // The decision moves the run again: the job runner marks it running (`run.resumed`) and the flag goes.
      await client.approvals.resolve(approval.agentId, approval.callId, { decision: "approve" });
      await expect.poll(() => item.getAttribute("data-stuck"), { timeout: UI_TIMEOUT }).toBe("false");
      await expect.poll(() => page.locator(byTestId("stuck-banner")).count()).toBe(0);
      await waitForIdle(client, thread.id);
      const events = await client.threads.events(thread.id);
      const types = events.filter((event) => event.runId === run!.id).map((event) => event.type);
      expect(types).toContain("run.stuck");
      expect(types).toContain("run.resumed");
      expect(types.indexOf("run.resumed")).toBeGreaterThan(types.indexOf("run.stuck"));
      await page.locator(`${byTestId("run-history")} summary`).click();
      await expect.poll(() => entry.getAttribute("data-status"), { timeout: UI_TIMEOUT }).toBe("completed");
      expect(pageErrors).toEqual([]);
    },
    TEST_TIMEOUT,
  );
});
