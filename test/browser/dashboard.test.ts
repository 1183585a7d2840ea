import type { LongrunClient } from "@longrun/client";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DashboardSession, openDashboardSession } from "./support/dashboard-session.ts";
import {
  gaugeHistory,
  hasDrop,
  NARROW,
  screenshot,
  transcriptDistanceFromBottom,
  transcriptMessageIds,
  UI_TIMEOUT,
  WIDE,
} from "./support/page-helpers.ts";
import type { BrowserServer } from "./support/servers.ts";

// The production dashboard in real Chromium against an embedded server with the sim model. The tests run in
// order and share one server: the team thread of the first test is compacted by hand and survives a restart.

const SHORT_RUN = { window: "8000", steps: "16" };
const TEST_TIMEOUT = 240_000;

let session: DashboardSession | undefined;
let server: BrowserServer | undefined;
let client: LongrunClient;
let page: Page;
let pageErrors: string[] = [];
let teamThreadId = "";

beforeAll(async () => {
  session = await openDashboardSession({ simDelayMs: 20 });
  ({ server, client, page, pageErrors } = session);
}, 300_000);

afterAll(async () => {
  await session?.close();
}, 60_000);

const byTestId = (id: string) => `[data-testid="${id}"]`;

/** Fills the new-thread form and submits it; returns the id of the thread the page opened. */
async function createThroughForm(options: { title: string; script: string; steps: string; task: string }) {
  await page.locator(byTestId("new-thread-button")).click();
  const form = page.locator(byTestId("create-thread"));
  await form.waitFor();
  await page.locator(byTestId("create-title")).fill(options.title);
  await page.locator(byTestId("create-max-input-tokens")).fill(SHORT_RUN.window);
  await page.locator(byTestId("create-sim-steps")).fill(options.steps);
  await page.locator(byTestId("create-sim-script")).selectOption(options.script);
  await page.locator(byTestId("create-task")).fill(options.task);
  await page.locator(byTestId("create-submit")).click();
  const view = page.locator(`${byTestId("thread-view")}[data-thread-id]`);
  await view.waitFor();
  const threadId = (await view.getAttribute("data-thread-id")) ?? "";
  expect(threadId).not.toBe("");
  expect(page.url()).toContain(`#/threads/${threadId}`);
  return threadId;
}

/**
 * The message ids the transcript should show for what the server stored of an agent: every message, a
 * tool result folded into its call when the call is there.
 */
async function storedEntryIds(agentId: string): Promise<string[]> {
  const messages = [];
  for (let afterSeq = -1; ; ) {
    const read = await client.agents.messages(agentId, { afterSeq });
    messages.push(...read.messages);
    if (read.nextAfterSeq === null) break;
    afterSeq = read.nextAfterSeq;
  }
  const calls = new Set(messages.flatMap((message) => (message.toolCalls ?? []).map((call) => call.id)));
  return messages
    .filter((message) => !(message.role === "tool" && message.toolCallId && calls.has(message.toolCallId)))
    .map((message) => message.id);
}

/** Waits until the open thread has no active run and is no longer running or waiting. */
async function waitForThreadAtRest() {
  await expect
    .poll(
      async () => ({
        status: await page.locator(byTestId("thread-view")).getAttribute("data-status"),
        runs: await page.locator(byTestId("run-chip")).count(),
      }),
      { timeout: 180_000, interval: 250 },
    )
    .toMatchObject({ status: expect.stringMatching(/^(idle|completed)$/), runs: 0 });
}

describe("dashboard in Chromium", () => {
  it(
    "creates a team thread through the form: sub-agents appear, the context is compacted and the gauge drops",
    async () => {
      await page.goto(server!.instance().dashboardUrl);
      await page.locator(byTestId("create-thread")).waitFor();
      // The token moved to localStorage and left the address bar.
      expect(page.url()).not.toContain("token=");
      await expect.poll(() => page.locator(byTestId("connection-banner")).count()).toBe(0);

      teamThreadId = await createThroughForm({
        title: "Team survey",
        script: "team",
        steps: SHORT_RUN.steps,
        task: "Survey the inventory service and report its modules, tests and docs.",
      });
      await page.locator(`${byTestId("thread-item")}[data-thread-id="${teamThreadId}"]`).waitFor();
      await page.locator(`${byTestId("connection-status")}.status-open`).waitFor();

      // The root agent and its three scouts, with the root as their parent in the tree.
      const nodes = page.locator(byTestId("agent-node"));
      await expect.poll(() => nodes.count(), { timeout: UI_TIMEOUT }).toBe(4);
      const names = await page.locator(`${byTestId("agent-tree")} .agent-name`).allTextContents();
      expect(names).toEqual(expect.arrayContaining(["scout-sources", "scout-tests", "scout-docs"]));
      expect(
        await page.locator(`${byTestId("agent-tree")} ul.tree ul.tree ${byTestId("agent-node")}`).count(),
      ).toBe(3);
      expect(await page.locator(`${byTestId("agent-node")}.selected`).count()).toBe(1);
      // The root's spawn_agents call links to the three sub-agents it created.
      await expect
        .poll(() => page.locator(byTestId("spawned-agent-link")).count(), { timeout: UI_TIMEOUT })
        .toBe(3);

      // The root's transcript shows a completed auto compaction, and the gauge went down.
      const completed = page.locator(`${byTestId("compaction-notice")}[data-phase="completed"]`);
      await completed.first().waitFor({ timeout: 180_000 });
      expect(await completed.first().getAttribute("data-trigger")).toBe("auto");
      // The history link names the file by its workspace-relative part, not the whole absolute path.
      const historyLink = completed.first().locator(byTestId("compaction-history-link"));
      expect(await historyLink.textContent()).toMatch(/\(\.longrun\/history\/.+\.jsonl\)$/);
      expect(await historyLink.getAttribute("title")).toMatch(/^\/.*\.longrun\/history\//);
      await expect.poll(async () => hasDrop(await gaugeHistory(page)), { timeout: UI_TIMEOUT }).toBe(true);
      await expect
        .poll(() => page.locator(byTestId("chart-compaction-mark")).count(), { timeout: UI_TIMEOUT })
        .toBeGreaterThanOrEqual(1);

      await waitForThreadAtRest();
      for (const status of await nodes.evaluateAll((all) =>
        all.map((node) => node.getAttribute("data-status")),
      ))
        expect(status).toBe("completed");
      const ids = await transcriptMessageIds(page);
      expect(ids.length).toBeGreaterThan(10);
      expect(new Set(ids).size).toBe(ids.length);
      // The transcript followed the output down to the last message.
      await expect.poll(() => transcriptDistanceFromBottom(page)).toBeLessThan(40);

      // The compacted history opens in an overlay (clicking the link scrolls the transcript up to it).
      await historyLink.click();
      await page
        .locator(`${byTestId("history-panel")} ${byTestId("history-message")}`)
        .first()
        .waitFor();
      await page.locator(byTestId("history-close")).click();
      await page.locator(byTestId("history-panel")).waitFor({ state: "detached" });

      // A scout's transcript opens on click.
      const scout = page.locator(`${byTestId("agent-node")}:has-text("scout-tests")`);
      await scout.click();
      const scoutId = await scout.getAttribute("data-agent-id");
      await page.locator(`${byTestId("transcript")}[data-agent-id="${scoutId}"]`).waitFor();
      await page
        .locator(`${byTestId("transcript")} ${byTestId("transcript-entry")}`)
        .first()
        .waitFor();
      await nodes.first().click();

      await screenshot(page, "thread-wide");
      expect(pageErrors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    "asks before run_command and runs it once approved",
    async () => {
      await createThroughForm({
        title: "Approval",
        script: "approval",
        steps: "6",
        task: "List the workspace files with a shell command, then report.",
      });
      const request = page.locator(byTestId("approval-request"));
      await request.waitFor({ timeout: 120_000 });
      const callId = (await request.getAttribute("data-call-id")) ?? "";
      expect(await page.locator(byTestId("approval-arguments")).textContent()).toContain("ls -la");
      await expect
        .poll(() => page.locator(`${byTestId("agent-node")}[data-status="waiting_approval"]`).count())
        .toBe(1);
      // The inspector explains the placeholder result the waiting call has in the next request.
      await page.locator(byTestId("context-repaired-note")).waitFor();
      await screenshot(page, "approval-wide");

      await page.locator(`${byTestId("approve-button")}[data-call-id="${callId}"]`).click();
      await page.locator(byTestId("approval-panel")).waitFor({ state: "detached" });
      const call = page.locator(`${byTestId("tool-call")}[data-call-id="${callId}"]`);
      await expect.poll(() => call.getAttribute("data-status"), { timeout: UI_TIMEOUT }).toBe("ok");
      await waitForThreadAtRest();
      expect(pageErrors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    "a manual compaction ends the turn: the agent continues only after the next message",
    async () => {
      await page.locator(`${byTestId("thread-item")}[data-thread-id="${teamThreadId}"]`).click();
      await page.locator(`${byTestId("thread-view")}[data-thread-id="${teamThreadId}"]`).waitFor();
      await waitForThreadAtRest();
      const entries = page.locator(byTestId("transcript-entry"));
      await expect.poll(() => entries.count()).toBeGreaterThan(10);
      const before = await transcriptMessageIds(page);

      await page.locator(byTestId("compact-button")).click();
      await page.locator(byTestId("action-notice")).waitFor();
      const manual = page.locator(
        `${byTestId("compaction-notice")}[data-trigger="manual"][data-phase="completed"]`,
      );
      await manual.waitFor({ timeout: 120_000 });
      await waitForThreadAtRest();
      // The notice follows the compaction's run to its end: it never stays at "queued".
      await expect
        .poll(() => page.locator(byTestId("action-notice")).getAttribute("data-state"), {
          timeout: UI_TIMEOUT,
        })
        .toBe("completed");
      // The inspector re-reads the projection after the compaction completed, not only when it started.
      await expect
        .poll(() => page.locator(byTestId("context-summary")).textContent(), { timeout: UI_TIMEOUT })
        .toContain("(manual)");
      // The compaction run is over and no model turn followed it: besides the record of the /compact
      // itself (a user message), the messages are the ones from before.
      const compacted = await transcriptMessageIds(page);
      expect(compacted.slice(0, before.length)).toEqual(before);
      const added = compacted.slice(before.length);
      expect(added.length).toBeLessThanOrEqual(1);
      for (const id of added) {
        const entry = page.locator(`${byTestId("transcript-entry")}[data-message-id="${id}"]`);
        expect(await entry.getAttribute("data-role")).toBe("user");
        expect(await entry.textContent()).toContain("/compact");
      }
      expect(await page.locator(`${byTestId("agent-node")}.selected`).getAttribute("data-status")).not.toBe(
        "running",
      );

      await page.locator(byTestId("composer-input")).fill("Thanks. Summarize what you found in two lines.");
      await page.locator(byTestId("send-button")).click();
      const question = page.locator(
        `${byTestId("transcript-entry")}[data-role="user"]:has-text("Summarize what you found")`,
      );
      await question.waitFor();
      const questionSeq = Number(await question.getAttribute("data-seq"));
      // Only now does the agent take another model turn.
      await expect
        .poll(
          async () =>
            (
              await page
                .locator(`${byTestId("transcript-entry")}[data-role="assistant"]`)
                .evaluateAll((nodes) => nodes.map((node) => Number(node.getAttribute("data-seq"))))
            ).some((seq) => seq > questionSeq),
          { timeout: 120_000 },
        )
        .toBe(true);
      await waitForThreadAtRest();
      const after = await transcriptMessageIds(page);
      expect(after.slice(0, compacted.length)).toEqual(compacted);
      expect(new Set(after).size).toBe(after.length);
      expect(pageErrors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    "reconnects by itself after a restart on the same port and shows every message once",
    async () => {
      await page.locator(`${byTestId("connection-status")}.status-open`).waitFor();
      // The page has applied every message the server stored before the restart (events reach it in
      // batches, later while it is busy): what it shows now is what a re-read must show again.
      const agentId = (await page.locator(byTestId("transcript")).getAttribute("data-agent-id")) ?? "";
      const stored = await storedEntryIds(agentId);
      await expect.poll(() => transcriptMessageIds(page), { timeout: 60_000 }).toEqual(stored);
      const before = await transcriptMessageIds(page);
      const notices = await page.locator(byTestId("compaction-notice")).count();
      const agents = await page.locator(byTestId("agent-node")).count();
      expect(before.length).toBeGreaterThan(10);

      await server!.stop();
      const banner = page.locator(byTestId("connection-banner"));
      await banner.waitFor();
      await expect.poll(() => banner.getAttribute("data-status")).toBe("reconnecting");
      expect(await page.locator(byTestId("connection-status")).textContent()).toBe("reconnecting");
      await screenshot(page, "reconnecting-wide");

      await server!.start();
      await banner.waitFor({ state: "detached", timeout: 120_000 });
      await page.locator(`${byTestId("connection-status")}.status-open`).waitFor();
      await expect.poll(async () => (await transcriptMessageIds(page)).length).toBe(before.length);
      const after = await transcriptMessageIds(page);
      expect(new Set(after).size).toBe(after.length);
      expect(after).toEqual(before);
      expect(await page.locator(byTestId("compaction-notice")).count()).toBe(notices);
      expect(await page.locator(byTestId("agent-node")).count()).toBe(agents);

      // A full reload after the restart reads the same view.
      await page.reload();
      await page.locator(`${byTestId("thread-view")}[data-thread-id="${teamThreadId}"]`).waitFor();
      await expect.poll(async () => (await transcriptMessageIds(page)).length).toBe(before.length);
      expect(await transcriptMessageIds(page)).toEqual(before);
      await expect.poll(() => transcriptDistanceFromBottom(page)).toBeLessThan(40);
      expect(pageErrors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    "renders the thread and operations views wide and narrow (screenshots)",
    async () => {
      await page
        .locator(`${byTestId("transcript-entry")}`)
        .first()
        .waitFor();
      await screenshot(page, "thread-wide");
      await page.locator(byTestId("nav-ops")).click();
      await page.locator(byTestId("ops-view")).waitFor();
      await page.locator(byTestId("ops-worker-row")).first().waitFor();
      await screenshot(page, "ops-wide");

      await page.setViewportSize(NARROW);
      await screenshot(page, "ops-narrow");
      await page.locator(byTestId("nav-threads")).click();
      await page.locator(`${byTestId("thread-item")}[data-thread-id="${teamThreadId}"]`).click();
      await page.locator(`${byTestId("thread-view")}[data-thread-id="${teamThreadId}"]`).waitFor();
      await page.locator(byTestId("transcript-entry")).first().waitFor();
      await screenshot(page, "thread-narrow");
      await page.setViewportSize(WIDE);
      expect(pageErrors).toEqual([]);
    },
    TEST_TIMEOUT,
  );
});
