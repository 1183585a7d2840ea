import type { LongrunClient } from "@longrun/client";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { markRunStuck } from "../e2e/support/mark-stuck.ts";
import { type DashboardSession, openDashboardSession } from "./support/dashboard-session.ts";
import { NARROW, screenshot, UI_TIMEOUT, WIDE } from "./support/page-helpers.ts";
import type { BrowserServer } from "./support/servers.ts";
import { byTestId, openThread, waitForIdle } from "./support/watch-helpers.ts";

// The defects an outside user found in real Chromium (issue 38), each shown fixed: what the page says
// while the server is down and once it is back, what it announces, what a forked sub-agent carries, the
// names on the operations view, the small layout slips, and what a step is. Each test makes its own
// threads; the ones that stop the server start it again before they end.

const TEST_TIMEOUT = 240_000;

let session: DashboardSession | undefined;
let server: BrowserServer | undefined;
let client: LongrunClient;
let page: Page;
let pageErrors: string[] = [];

beforeAll(async () => {
  session = await openDashboardSession({ simDelayMs: 10, home: true });
  ({ server, client, page, pageErrors } = session);
}, 300_000);

afterAll(async () => {
  await session?.close();
}, 60_000);

const origin = () => new URL(server!.instance().url).origin;

async function showThread(threadId: string): Promise<void> {
  await page.goto(`${origin()}/#/`);
  await openThread(page, threadId);
}

/** A thread whose root agent is busy for a long while (cancelled by the test that started it). */
async function busyThread(title: string): Promise<{ threadId: string; agentId: string }> {
  const thread = await client.threads.create({
    title,
    model: "sim",
    simSteps: 2000,
    maxInputTokens: 64_000,
    task: "Survey the project and report.",
  });
  const root = thread.agents.find((agent) => agent.parentAgentId === null);
  if (!root) throw new Error("no root agent");
  return { threadId: thread.id, agentId: root.id };
}

/** Cancels the thread's active runs and waits until none is left. */
async function cancelRuns(threadId: string): Promise<void> {
  for (const run of (await client.threads.get(threadId)).runs) {
    if (run.finishedAt === null) await client.runs.cancel(run.id).catch(() => undefined);
  }
  await waitForIdle(client, threadId);
}

/**
 * Starts recording, from inside the page and on every DOM change, `read()`'s value (a page expression)
 * each time it differs from the last one recorded; `recorded()` returns them in order.
 */
async function recordInPage(name: string, read: string): Promise<() => Promise<string[]>> {
  await page.evaluate(`
    window[${JSON.stringify(name)}] = [];
    new MutationObserver(() => {
      const list = window[${JSON.stringify(name)}];
      const value = (${read});
      if (value !== null && list[list.length - 1] !== value) list.push(value);
    }).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
  `);
  return async () => (await page.evaluate(`window[${JSON.stringify(name)}]`)) as string[];
}

describe("the defects of issue 38", () => {
  it(
    "stops counting what an agent does while the server is down, and says the connection was lost",
    async () => {
      const { threadId, agentId } = await busyThread("Busy while the server goes");
      await showThread(threadId);
      const card = page.locator(
        `${byTestId("agent-node")}[data-agent-id="${agentId}"] ${byTestId("agent-activity")}`,
      );
      await page
        .locator(`${byTestId("agent-node")}[data-agent-id="${agentId}"][data-status="running"]`)
        .waitFor({ timeout: UI_TIMEOUT });
      await server!.stop();
      try {
        await page
          .locator(`${byTestId("connection-banner")}[data-status="reconnecting"]`)
          .waitFor({ timeout: UI_TIMEOUT });
        // Nothing has come from the server for 2 s (the last batch of events is drawn); from here on,
        // every line the card shows is recorded while 3 more seconds pass.
        await expect.poll(() => card.textContent(), { timeout: UI_TIMEOUT }).toMatch(/last event [2-9]s ago/);
        const lines = await recordInPage(
          "__cardLines",
          `document.querySelector('[data-agent-id="${agentId}"] [data-testid="agent-activity"]')?.textContent ?? null`,
        );
        await expect.poll(() => card.textContent(), { timeout: UI_TIMEOUT }).toMatch(/last event [5-9]s ago/);
        await screenshot(page, "defects-server-down-wide");
        const seen = await lines();
        expect(seen.length).toBeGreaterThan(1);
        // What it was doing is its last known state, said as such, and no longer counted up.
        for (const line of seen) expect(line).toMatch(/when the connection was lost/);
        const withoutLastEvent = new Set(seen.map((line) => line.replace(/ · last event .*$/, "")));
        expect([...withoutLastEvent], JSON.stringify(seen)).toHaveLength(1);
        expect(await card.getAttribute("data-offline")).toBe("true");
        // The header and the run chip say the same: the last status known, not "running" as if live.
        const head = page.locator(byTestId("thread-status"));
        expect(await head.getAttribute("data-offline")).toBe("true");
        expect(await head.textContent()).toMatch(/when the connection was lost/);
        expect(await page.locator(byTestId("run-chip")).first().textContent()).toMatch(
          /when the connection was lost/,
        );
      } finally {
        await server!.start();
      }
      await page.locator(`${byTestId("connection-status")}.status-open`).waitFor({ timeout: 120_000 });
      await cancelRuns(threadId);
      await expect.poll(() => card.getAttribute("data-offline"), { timeout: UI_TIMEOUT }).toBeNull();
      expect(await page.locator(byTestId("thread-status")).textContent()).not.toMatch(/connection was lost/);
      expect(pageErrors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    "never shows an 'open' pill beside 'Cannot reach the server' once the server is back",
    async () => {
      const { threadId } = await busyThread("Open pill, no stale banner");
      await showThread(threadId);
      await page.locator(`${byTestId("connection-status")}.status-open`).waitFor({ timeout: UI_TIMEOUT });
      const pairs = await recordInPage(
        "__pillAndBanner",
        `(document.querySelector('[data-testid="connection-status"]')?.textContent ?? "") + " | " +
          (document.querySelector('[data-testid="connection-banner"]')?.textContent ?? "")`,
      );
      // While the server is down the page reads the thread list and fails; here those reads keep failing
      // until the live connection is back (which of the two comes back first is otherwise a race of
      // timers). The SDK's own probe before it reconnects (`?limit=1`) is left alone.
      const isListRead = (url: URL) =>
        url.pathname === "/v1/threads" && url.searchParams.get("limit") !== "1";
      await page.route(isListRead, (route) => route.abort("connectionrefused"));
      await server!.stop();
      try {
        await page
          .locator(`${byTestId("connection-banner")}[data-status="reconnecting"]`)
          .waitFor({ timeout: UI_TIMEOUT });
        // The page's slow read while the socket is down comes 5 s after the first one, which has failed
        // by then with all its retries: the failure the banner showed beside "open" is in the state.
        const downAt = Date.now();
        await page.waitForRequest(
          (request) => isListRead(new URL(request.url())) && Date.now() - downAt >= 4_000,
          { timeout: UI_TIMEOUT },
        );
      } finally {
        await server!.start();
      }
      await page.locator(`${byTestId("connection-status")}.status-open`).waitFor({ timeout: 120_000 });
      await page.unroute(isListRead);
      // The list is read again after the reconnect, and no banner stays.
      await page.waitForResponse((response) => isListRead(new URL(response.url())), { timeout: UI_TIMEOUT });
      await page.locator(byTestId("connection-banner")).waitFor({ state: "detached", timeout: UI_TIMEOUT });
      const seen = await pairs();
      expect(seen.some((pair) => pair.startsWith("reconnecting | Reconnecting"))).toBe(true);
      expect(seen.filter((pair) => pair.startsWith("open | Cannot reach the server"))).toEqual([]);
      expect(await page.locator(byTestId("connection-banner")).count()).toBe(0);
      await cancelRuns(threadId);
      expect(pageErrors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    "announces the decision on an approval instead of still asking about it",
    async () => {
      // No task: the thread is open before its first message, so the request arrives live.
      const thread = await client.threads.create({
        title: "Announced decision",
        model: "sim",
        simScript: "approval",
        simSteps: 6,
        maxInputTokens: 8000,
      });
      await showThread(thread.id);
      const announcements = await recordInPage(
        "__announcements",
        `document.querySelector('[data-testid="live-announcer"]')?.textContent || null`,
      );
      await client.threads.sendMessage(thread.id, {
        content: "List the workspace files with a shell command, then report.",
      });
      const blocker = page.locator(`${byTestId("blocked-on")} ${byTestId("blocker")}[data-kind="approval"]`);
      await blocker.waitFor({ timeout: UI_TIMEOUT });
      const announcer = page.locator(byTestId("live-announcer"));
      await expect
        .poll(() => announcer.textContent(), { timeout: UI_TIMEOUT })
        .toMatch(/asks to run run_command/);
      await blocker.locator(byTestId("blocker-approve")).click();
      await waitForIdle(client, thread.id);
      // The request was answered: the region said so, and never asked again about the decided call.
      await expect
        .poll(announcements, { timeout: UI_TIMEOUT })
        .toContain("run_command approved: root goes on.");
      const seen = await announcements();
      const asked = seen.findIndex((text) => text.includes("asks to run run_command"));
      const decided = seen.indexOf("run_command approved: root goes on.");
      expect(asked).toBeGreaterThanOrEqual(0);
      expect(decided).toBeGreaterThan(asked);
      expect(seen.slice(decided).some((text) => text.includes("asks to run"))).toBe(false);
      expect(await announcer.textContent()).not.toMatch(/asks to run/);
      expect(pageErrors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    "shows what a forked sub-agent inherited from its parent, with a way back to the parent",
    async () => {
      // The sim's team: its docs scout is spawned with `inherit: "fork"` (the parent's context).
      const thread = await client.threads.create({
        title: "Forked scout",
        model: "sim",
        simScript: "team",
        simSteps: 16,
        maxInputTokens: 8000,
        task: "Survey the inventory service and report its modules, tests and docs.",
      });
      await waitForIdle(client, thread.id);
      const detail = await client.threads.get(thread.id);
      const root = detail.agents.find((agent) => agent.parentAgentId === null);
      const forked = detail.agents.find((agent) => agent.inherit === "fork");
      const fresh = detail.agents.find((agent) => agent.parentAgentId !== null && agent.inherit === "fresh");
      if (!root || !forked?.forkMessageId || !fresh)
        throw new Error("the team has no forked and fresh scout");
      const parentLog = (await client.agents.messages(root.id, { limit: 5000 })).messages;
      const anchor = parentLog.find((message) => message.id === forked.forkMessageId);
      if (!anchor) throw new Error("the fork message is not in the parent's log");
      const carried = parentLog.filter((message) => message.seq <= anchor.seq);

      await showThread(thread.id);
      const origin = page.locator(byTestId("fork-origin"));
      const select = (agentId: string) =>
        page.locator(`${byTestId("agent-node")}[data-agent-id="${agentId}"]`).click();
      await select(forked.id);
      await origin.waitFor({ timeout: UI_TIMEOUT });
      expect(await origin.getAttribute("data-source-agent-id")).toBe(root.id);
      expect(Number(await origin.getAttribute("data-inherited"))).toBe(carried.length);
      expect(await origin.locator(byTestId("inherited-message")).last().getAttribute("data-message-id")).toBe(
        forked.forkMessageId,
      );
      expect(await origin.textContent()).toContain(
        `Forked from ${root.name}'s context after message #${anchor.seq}: it starts from ${carried.length} messages`,
      );
      await origin.scrollIntoViewIfNeeded();
      await screenshot(page, "defects-fork-child-wide");
      // A scout that starts from its brief alone inherited nothing, and says nothing about it.
      await select(fresh.id);
      await page.locator(`${byTestId("transcript")}[data-agent-id="${fresh.id}"]`).waitFor();
      await origin.waitFor({ state: "detached" });
      // From the fork back to the parent it came from.
      await select(forked.id);
      await origin.locator(byTestId("fork-source-agent")).click();
      await page
        .locator(`${byTestId("agent-node")}[data-agent-id="${root.id}"][aria-current="true"]`)
        .waitFor();
      expect(pageErrors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    "names threads and agents on the operations view instead of showing raw ids",
    async () => {
      // A window too small for its own system prompt: the run fails (context_exhausted) and is listed.
      const doomed = await client.threads.create({
        title: "Doomed by its prompt",
        model: "sim",
        simSteps: 1,
        maxInputTokens: 1024,
        systemPrompt: "Read every file twice before answering. ".repeat(600),
        task: "Start.",
      });
      await waitForIdle(client, doomed.id);
      const root = doomed.agents.find((agent) => agent.parentAgentId === null);
      if (!root) throw new Error("no root agent");
      await page.goto(`${origin()}/#/ops`);
      const rows = page
        .locator(byTestId("ops-failure-row"))
        .filter({ has: page.locator(`${byTestId("ops-thread-link")}[title="${doomed.id}"]`) });
      await expect.poll(() => rows.count(), { timeout: UI_TIMEOUT }).toBeGreaterThan(0);
      const first = rows.first();
      await expect
        .poll(() => first.locator(byTestId("ops-thread-link")).textContent(), { timeout: UI_TIMEOUT })
        .toBe("Doomed by its prompt");
      expect(await first.locator(byTestId("ops-agent-name")).textContent()).toBe(root.name);
      // The ids are there on hover, not in the text a person reads.
      expect(await first.locator(byTestId("ops-agent-name")).getAttribute("title")).toBe(root.id);
      const text = (await first.textContent()) ?? "";
      expect(text).not.toContain(doomed.id);
      expect(text).not.toContain(root.id);
      await screenshot(page, "defects-ops-names-wide");
      await first.locator(byTestId("ops-thread-link")).click();
      await page.locator(`${byTestId("thread-view")}[data-thread-id="${doomed.id}"]`).waitFor();
      expect(pageErrors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    "lists a stuck run on the operations view by its thread's title and agent's name, with why it is stuck",
    async () => {
      const thread = await client.threads.create({
        title: "Stuck for good",
        model: "sim",
        simSteps: 1,
        maxInputTokens: 16_000,
      });
      const root = thread.agents.find((agent) => agent.parentAgentId === null);
      if (!root) throw new Error("no root agent");
      const { runId } = await client.threads.sendMessage(thread.id, { content: "Have a look." });
      await waitForIdle(client, thread.id);
      await page.goto(`${origin()}/#/ops`);
      await page.locator(byTestId("ops-stuck")).waitFor();
      expect(await page.locator(`${byTestId("ops-stuck-row")}[data-run="${runId}"]`).count()).toBe(0);
      // As the reconciler leaves a run that nothing moves.
      await markRunStuck(server!.dataDir, runId, "no progress after 3 recoveries");
      const row = page.locator(`${byTestId("ops-stuck-row")}[data-run="${runId}"]`);
      await row.waitFor({ timeout: UI_TIMEOUT });
      await expect
        .poll(() => row.locator(byTestId("ops-thread-link")).textContent(), { timeout: UI_TIMEOUT })
        .toBe("Stuck for good");
      expect(await row.locator(byTestId("ops-agent-name")).textContent()).toBe(root.name);
      expect(await row.textContent()).toContain("no progress after 3 recoveries");
      await screenshot(page, "defects-ops-stuck-wide");
      expect(pageErrors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    "keeps the skip link wholly off screen until it has the focus, wide and on a phone",
    async () => {
      await page.goto(`${origin()}/#/`);
      await page.locator(byTestId("create-thread")).waitFor();
      const skip = page.locator(byTestId("skip-to-composer"));
      try {
        for (const size of [WIDE, NARROW]) {
          await page.setViewportSize(size);
          await page.evaluate("window.scrollTo(0, 0)");
          const hidden = await skip.boundingBox();
          expect(hidden, `${size.width} px`).not.toBeNull();
          // Not a pixel of it shows at the top of the page (on a phone it is 44 px tall).
          expect((hidden?.y ?? 0) + (hidden?.height ?? 0), `${size.width} px`).toBeLessThanOrEqual(0);
          await skip.focus();
          const shown = await skip.boundingBox();
          expect(shown?.y ?? -1, `${size.width} px`).toBeGreaterThanOrEqual(0);
          if (size === NARROW) await screenshot(page, "defects-skip-link-focused-narrow");
          await skip.blur();
        }
      } finally {
        await page.setViewportSize(WIDE);
      }
      expect(pageErrors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    "gives the spawn form's inherit choice the width of its longest option, wide, mid-size and on a phone",
    async () => {
      const thread = await client.threads.create({
        title: "Spawn form",
        model: "sim",
        simSteps: 2,
        task: "Say hi.",
      });
      await waitForIdle(client, thread.id);
      await showThread(thread.id);
      await page.locator(byTestId("spawn-toggle")).click();
      const inherit = page.locator(byTestId("spawn-inherit")).first();
      await inherit.waitFor();
      // How wide the select is when nothing constrains it: the width its longest option needs.
      const cut = () =>
        inherit.evaluate((select) => {
          const shown = select.getBoundingClientRect().width;
          const style = select.style.cssText;
          select.style.cssText = `${style}; position: absolute; width: auto; min-width: 0; max-width: none`;
          const needed = select.getBoundingClientRect().width;
          select.style.cssText = style;
          return needed - shown;
        });
      try {
        for (const size of [WIDE, { width: 1100, height: 800 }, NARROW]) {
          await page.setViewportSize(size);
          expect(
            await cut(),
            `${size.width} px: pixels of "fork (parent's context)" cut off`,
          ).toBeLessThanOrEqual(0.5);
          // The form still fits its column.
          const overflow = await page
            .locator(byTestId("agent-actions"))
            .evaluate((panel) => panel.scrollWidth - panel.clientWidth);
          expect(overflow, `${size.width} px`).toBeLessThanOrEqual(0);
        }
        await page.setViewportSize(WIDE);
        await inherit.selectOption("fork");
        await page.locator(byTestId("agent-actions")).screenshot({
          path: await screenshot(page, "defects-spawn-form-wide"),
        });
      } finally {
        await page.setViewportSize(WIDE);
      }
      expect(pageErrors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    "keeps a long model name inside its line of the thread list, wide and on a phone",
    async () => {
      // The sim's model string carries its options: this one is 54 characters without a space.
      const thread = await client.threads.create({
        title: "Long model name",
        model: "sim",
        simSteps: 100_000,
        simScript: "approval",
        simReasoning: true,
        maxInputTokens: 128_000,
      });
      await page.goto(`${origin()}/#/`);
      const item = page.locator(`${byTestId("thread-item")}[data-thread-id="${thread.id}"]`);
      await item.waitFor({ timeout: UI_TIMEOUT });
      expect(await item.textContent()).toContain("sim:steps=100000:script=approval:reasoning=1:ctx=128000");
      // How far any line of the row reaches past the row's content box (a clipped title counts as clipped).
      const spill = () =>
        item.evaluate((row) => {
          const view = row.ownerDocument.defaultView;
          const limit =
            row.getBoundingClientRect().right - Number.parseFloat(view.getComputedStyle(row).paddingRight);
          let worst = Number.NEGATIVE_INFINITY;
          for (const part of row.children) {
            const range = row.ownerDocument.createRange();
            range.selectNodeContents(part);
            const clipped = view.getComputedStyle(part).overflow === "hidden";
            const right = (clipped ? part : range).getBoundingClientRect().right;
            worst = Math.max(worst, right - limit);
          }
          return worst;
        });
      try {
        for (const size of [WIDE, NARROW]) {
          await page.setViewportSize(size);
          expect(await spill(), `${size.width} px: pixels past the row`).toBeLessThanOrEqual(0.5);
        }
        await page.locator(byTestId("thread-list")).screenshot({
          path: await screenshot(page, "defects-long-model-narrow"),
        });
      } finally {
        await page.setViewportSize(WIDE);
      }
      expect(pageErrors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    "says beside an agent's step how many model turns it took, and what a step is",
    async () => {
      const thread = await client.threads.create({
        title: "Forty model turns",
        model: "sim",
        simSteps: 40,
        maxInputTokens: 8000,
        task: "Survey the inventory service and report its modules, tests and docs.",
      });
      await waitForIdle(client, thread.id);
      const root = thread.agents.find((agent) => agent.parentAgentId === null);
      if (!root) throw new Error("no root agent");
      // The server's account: a context.measured at each step, at its log position, with the cost of the
      // model call it led to (none when the step compacted instead).
      const measured = (
        await client.threads.events(thread.id, { since: 0, limit: 1_000, types: "context.measured" })
      ).flatMap((event) =>
        event.type === "context.measured" && event.agentId === root.id ? [event.data] : [],
      );
      const turns = measured.filter((data) => data.cost !== undefined);
      const lastStep = Math.max(...measured.map((data) => data.step));
      // A 40-step sim task is 40 model turns and its final report, some steps compacted, and its log goes
      // far past step 40.
      expect(turns.length).toBeGreaterThanOrEqual(40);
      expect(measured.length).toBeGreaterThan(turns.length);
      expect(lastStep).toBeGreaterThan(80);

      await showThread(thread.id);
      const card = page.locator(
        `${byTestId("agent-node")}[data-agent-id="${root.id}"] ${byTestId("agent-activity")}`,
      );
      await expect
        .poll(() => card.textContent(), { timeout: UI_TIMEOUT })
        .toMatch(new RegExp(`^step ${lastStep} \\(${turns.length} model turns\\) · `));
      expect(await card.getAttribute("title")).toMatch(/A step is a position in the agent's log/);
      await page.locator(byTestId("agent-tree")).screenshot({
        path: await screenshot(page, "defects-step-turns-wide"),
      });
      expect(pageErrors).toEqual([]);
    },
    TEST_TIMEOUT,
  );
});
