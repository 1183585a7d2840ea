import type { LongrunClient } from "@longrun/client";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DashboardSession, openDashboardSession } from "./support/dashboard-session.ts";
import { NARROW, openPage, screenshot, UI_TIMEOUT, WIDE } from "./support/page-helpers.ts";
import type { BrowserServer } from "./support/servers.ts";
import { byTestId, openThread, seriousAxeViolations, waitForIdle } from "./support/watch-helpers.ts";

// What a person watching agents needs: approvals waiting anywhere (inbox, badges, the tab title), what
// each agent is doing now, and a page that passes axe-core with no serious violation at both sizes.

const TEST_TIMEOUT = 240_000;
const APPROVAL_TASK = "List the workspace files with a shell command, then report.";

let session: DashboardSession | undefined;
let server: BrowserServer | undefined;
let client: LongrunClient;
let page: Page;
let pageErrors: string[] = [];
let first = "";
let second = "";

beforeAll(async () => {
  session = await openDashboardSession({ simDelayMs: 5, home: true });
  ({ server, client, page, pageErrors } = session);
}, 300_000);

afterAll(async () => {
  await session?.close();
}, 60_000);

const origin = () => new URL(server!.instance().url).origin;

describe("watching agents", () => {
  it(
    "keeps the thread list current from the tenant's events, not a timer",
    async () => {
      // A second page whose timers only run when the test says so: any read it makes while no timer
      // runs is caused by an event, and reads that would come from polling cannot happen unseen.
      const watcher = await openPage(session!.browser, WIDE);
      try {
        const listReads: string[] = [];
        watcher.page.on("request", (request) => {
          const url = new URL(request.url());
          if (request.method() === "GET" && url.pathname === "/v1/threads") listReads.push(url.pathname);
        });
        await watcher.page.clock.install();
        await watcher.page.goto(server!.instance().dashboardUrl);
        await watcher.page.locator(byTestId("thread-list")).waitFor();
        const tick = () => watcher.page.clock.runFor(1_100);
        // Settled after opening (the first read, and the one after the socket opened).
        await tick();
        await tick();
        const settled = listReads.length;
        expect(settled).toBeGreaterThan(0);
        // 40 s with nothing happening in the tenant: no read (the 5 s poll this replaced read again here).
        // Longer would trip the SDK's 45 s idle timeout, since the server's pings arrive in real time.
        await watcher.page.clock.runFor(40_000);
        expect(listReads.length).toBe(settled);

        // Another client starts a thread: its events bring it into the list, then its approval badge, and
        // after the call is decided elsewhere, its end.
        const created = await client.threads.create({
          title: "Seen from events",
          model: "sim",
          simScript: "approval",
          simSteps: 6,
          maxInputTokens: 8000,
          task: APPROVAL_TASK,
        });
        const item = watcher.page.locator(`${byTestId("thread-item")}[data-thread-id="${created.id}"]`);
        const eventually = async <Value>(read: () => Promise<Value>, expected: Value) =>
          expect
            .poll(
              async () => {
                await tick();
                return read();
              },
              { timeout: UI_TIMEOUT },
            )
            .toBe(expected);
        await eventually(() => item.getAttribute("data-approvals"), "1");
        const [waiting] = await client.approvals.pending();
        expect(waiting?.threadId).toBe(created.id);
        await client.approvals.resolve(waiting!.agentId, waiting!.callId, { decision: "approve" });
        await waitForIdle(client, created.id);
        const final = (await client.threads.get(created.id)).status;
        await eventually(() => item.getAttribute("data-approvals"), "0");
        await eventually(() => item.getAttribute("data-status"), final);
        expect(listReads.length).toBeGreaterThan(settled);
        expect(watcher.errors).toEqual([]);
      } finally {
        await watcher.close();
      }
    },
    TEST_TIMEOUT,
  );

  it(
    "collects approvals from two threads in one inbox, with badges and a count in the tab title",
    async () => {
      const create = (title: string) =>
        client.threads.create({
          title,
          model: "sim",
          simScript: "approval",
          simSteps: 6,
          maxInputTokens: 8000,
          task: APPROVAL_TASK,
        });
      first = (await create("Approval one")).id;
      second = (await create("Approval two")).id;
      const button = page.locator(byTestId("inbox-button"));
      await expect.poll(() => button.getAttribute("data-count"), { timeout: UI_TIMEOUT }).toBe("2");
      await expect.poll(() => page.title()).toBe("(2) longrun");
      for (const threadId of [first, second]) {
        const item = page.locator(`${byTestId("thread-item")}[data-thread-id="${threadId}"]`);
        await expect.poll(() => item.getAttribute("data-approvals"), { timeout: UI_TIMEOUT }).toBe("1");
        await item.locator(byTestId("thread-approval-badge")).waitFor();
      }
      await button.click();
      const inbox = page.locator(byTestId("approval-inbox"));
      await expect.poll(() => inbox.locator(byTestId("inbox-item")).count()).toBe(2);
      await screenshot(page, "inbox-wide");

      // Approved from the inbox, without opening the thread: its agent goes on and the count drops.
      await inbox
        .locator(`${byTestId("inbox-item")}[data-thread-id="${first}"] ${byTestId("inbox-approve")}`)
        .click();
      await expect.poll(() => button.getAttribute("data-count"), { timeout: UI_TIMEOUT }).toBe("1");
      await expect.poll(() => page.title()).toBe("(1) longrun");
      await waitForIdle(client, first);

      // The other one opens from the inbox, with its request in the thread and the agent waiting.
      await inbox
        .locator(`${byTestId("inbox-item")}[data-thread-id="${second}"] ${byTestId("inbox-open-thread")}`)
        .click();
      await page
        .locator(`${byTestId("thread-view")}[data-thread-id="${second}"][data-history-loaded="true"]`)
        .waitFor();
      await page.locator(byTestId("approval-request")).waitFor();
      const root = page.locator(`${byTestId("agent-node")}[data-status="waiting_approval"]`);
      await root.waitFor();
      expect(await root.locator(byTestId("agent-activity")).textContent()).toMatch(
        /step \d+ .*tok · last event/,
      );
      expect(await page.locator(`${byTestId("agent-node")}[aria-current="true"]`).count()).toBe(1);

      // A conversation sent through the OpenAI-compatible gateway is a thread marked as such in the list.
      const answer = await fetch(`${server!.instance().url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${server!.instance().token}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "sim", messages: [{ role: "user", content: "Say hello." }] }),
      });
      expect(answer.status).toBe(200);
      await expect
        .poll(() => page.locator(`${byTestId("thread-item")} ${byTestId("thread-gateway-badge")}`).count(), {
          timeout: UI_TIMEOUT,
        })
        .toBe(1);
      expect(pageErrors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    "follows approval events across threads instead of polling the inbox",
    async () => {
      // Every read of the inbox the page makes, from here on.
      const reads: number[] = [];
      const onRequest = (request: { url(): string; method(): string }) => {
        if (request.method() === "GET" && new URL(request.url()).pathname === "/v1/approvals") {
          reads.push(Date.now());
        }
      };
      page.on("request", onRequest);
      try {
        // A whole run with no approval in it: no approval event, so no read (a 3 s timer would read).
        const quiet = await client.threads.create({
          title: "No approvals",
          model: "sim",
          simSteps: 120,
          maxInputTokens: 64_000,
          task: "Survey the project and report.",
        });
        const startedAt = Date.now();
        await waitForIdle(client, quiet.id);
        const quietMs = Date.now() - startedAt;
        expect(reads, `reads during a ${quietMs} ms run without approvals`).toEqual([]);
        // A new approval in another thread reaches the closed inbox through its event, then one read.
        const button = page.locator(byTestId("inbox-button"));
        const before = Number(await button.getAttribute("data-count"));
        const third = await client.threads.create({
          title: "Approval three",
          model: "sim",
          simScript: "approval",
          simSteps: 6,
          maxInputTokens: 8000,
          task: APPROVAL_TASK,
        });
        await expect
          .poll(() => button.getAttribute("data-count"), { timeout: UI_TIMEOUT })
          .toBe(String(before + 1));
        expect(reads.length).toBeGreaterThan(0);
        const [pending] = (await client.approvals.pending()).filter((item) => item.threadId === third.id);
        await client.approvals.resolve(pending!.agentId, pending!.callId, { decision: "deny" });
        await expect
          .poll(() => button.getAttribute("data-count"), { timeout: UI_TIMEOUT })
          .toBe(String(before));
        await waitForIdle(client, third.id);
      } finally {
        page.off("request", onRequest);
      }
    },
    TEST_TIMEOUT,
  );

  it(
    "has no serious axe-core violation, wide and narrow, and keeps the composer on screen with an approval",
    async () => {
      const problems: string[] = [];
      await page.locator(byTestId("approval-request")).waitFor();
      problems.push(...(await seriousAxeViolations(page)).map((line) => `thread wide: ${line}`));
      await screenshot(page, "watch-approval-wide");
      await page.setViewportSize(NARROW);
      problems.push(...(await seriousAxeViolations(page)).map((line) => `thread narrow: ${line}`));
      await screenshot(page, "watch-approval-narrow");
      // Touch targets: every button of the thread view is at least 44 px tall on a phone.
      const short = await page
        .locator(`${byTestId("thread-view")} button:visible`)
        .evaluateAll((nodes) =>
          nodes.filter((node) => node.getBoundingClientRect().height < 44).map((node) => node.textContent),
        );
      expect(short).toEqual([]);
      await page.setViewportSize(WIDE);
      // The approval panel never pushes the composer out of the window.
      const composer = await page.locator(byTestId("composer")).boundingBox();
      expect((composer?.y ?? Number.POSITIVE_INFINITY) + (composer?.height ?? 0)).toBeLessThanOrEqual(
        WIDE.height,
      );

      await page.locator(byTestId("deny-button")).click();
      await waitForIdle(client, second);
      await page.goto(`${origin()}/#/`);
      await page.locator(byTestId("create-thread")).waitFor();
      problems.push(...(await seriousAxeViolations(page)).map((line) => `home wide: ${line}`));
      await openThread(page, first);
      problems.push(...(await seriousAxeViolations(page)).map((line) => `finished thread wide: ${line}`));
      await screenshot(page, "watch-thread-wide");
      await page.setViewportSize(NARROW);
      problems.push(...(await seriousAxeViolations(page)).map((line) => `finished thread narrow: ${line}`));
      await screenshot(page, "watch-thread-narrow");
      await page.setViewportSize(WIDE);
      expect(problems).toEqual([]);

      // The spawn form fits its column.
      await page.locator(byTestId("spawn-toggle")).click();
      await page.locator(byTestId("spawn-row")).first().waitFor();
      const overflow = await page
        .locator(byTestId("agent-actions"))
        .evaluate((panel) => panel.scrollWidth - panel.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await screenshot(page, "watch-spawn-form-wide");
      await page.locator(byTestId("spawn-toggle")).click();

      // The skip link moves focus to the message box.
      await page.locator(byTestId("skip-to-composer")).focus();
      await page.keyboard.press("Enter");
      expect(
        await page.evaluate(
          () =>
            (globalThis as unknown as { document: { activeElement: { id: string } } }).document.activeElement
              .id,
        ),
      ).toBe("composer-input");
      expect(pageErrors).toEqual([]);
    },
    TEST_TIMEOUT,
  );
});
