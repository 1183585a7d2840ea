import type { LongrunClient } from "@longrun/client";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DashboardSession, openDashboardSession } from "./support/dashboard-session.ts";
import { NARROW, screenshot, UI_TIMEOUT, WIDE } from "./support/page-helpers.ts";
import type { BrowserServer } from "./support/servers.ts";
import { byTestId, openThread, waitForIdle } from "./support/watch-helpers.ts";

// What the dashboard says about the model's context must be what the server's projection holds: what a
// compaction took out (never the system prompt or the task it still sends), one token figure, the map
// of the next request.

const TEST_TIMEOUT = 240_000;

let session: DashboardSession | undefined;
let server: BrowserServer | undefined;
let client: LongrunClient;
let page: Page;
let pageErrors: string[] = [];
/** The finished 40-step thread of the first test, reused by the next ones. */
let finished: { threadId: string; agentId: string } | undefined;

beforeAll(async () => {
  session = await openDashboardSession({ simDelayMs: 5, home: true });
  ({ server, client, page, pageErrors } = session);
}, 300_000);

afterAll(async () => {
  await session?.close();
}, 60_000);

async function finishedThread(
  title: string,
  simSteps: number,
): Promise<{ threadId: string; agentId: string }> {
  const thread = await client.threads.create({
    title,
    model: "sim",
    simSteps,
    maxInputTokens: 8000,
    task: "Survey the inventory service and report its modules, tests and docs.",
  });
  await waitForIdle(client, thread.id);
  const detail = await client.threads.get(thread.id);
  const root = detail.agents.find((agent) => agent.parentAgentId === null);
  if (!root) throw new Error("no root agent");
  return { threadId: thread.id, agentId: root.id };
}

async function showThread(threadId: string): Promise<void> {
  await page.goto(`${new URL(server!.instance().url).origin}/#/`);
  await openThread(page, threadId);
}

/** seq → data-compacted of every message entry drawn, after showing every earlier entry. */
async function greyedBySeq(): Promise<Map<number, boolean>> {
  const earlier = page.locator(byTestId("transcript-show-earlier"));
  while ((await earlier.count()) > 0) await earlier.click();
  const pairs = await page
    .locator(`${byTestId("transcript-entry")}[data-seq]`)
    .evaluateAll((nodes) =>
      nodes.map((node) => [
        Number(node.getAttribute("data-seq")),
        node.getAttribute("data-compacted") === "true",
      ]),
    );
  return new Map(pairs as [number, boolean][]);
}

describe("the context the dashboard shows is the server's projection", () => {
  it(
    "greys out exactly what the compaction in force took out: never the system prompt or the pinned task",
    async () => {
      finished = await finishedThread("Kept messages", 40);
      const { threadId, agentId } = finished;
      const compactions = await client.agents.compactions(agentId);
      const first = compactions[0];
      expect(first?.coverage).toBeDefined();
      const inForce = compactions.at(-1)?.coverage;
      if (!first?.coverage || !inForce) throw new Error("no compaction");
      // The server says the first compaction of an 8k thread still sends the system prompt and the task.
      expect(first.coverage.kept.map((item) => item.why).sort()).toEqual(["pinned", "system"]);
      const kept = new Set(inForce.kept.map((item) => item.seq));
      const boundary = inForce.toSeq + 1;

      await showThread(threadId);
      const notice = page.locator(`${byTestId("compaction-notice")}[data-phase="completed"]`).first();
      await notice.locator(byTestId("compaction-removed")).waitFor({ timeout: UI_TIMEOUT });
      const removedText = (await notice.locator(byTestId("compaction-removed")).textContent()) ?? "";
      const [, from, to] = removedText.match(/messages #(\d+)–#(\d+)/) ?? [];
      // The range starts after what is still sent, and says what that is.
      expect(Number(from)).toBeGreaterThan(Math.max(...first.coverage.kept.map((item) => item.seq)));
      expect(Number(to)).toBe(first.coverage.toSeq);
      expect(removedText).toMatch(/Still sent verbatim: #0 \(system prompt\), #1 \(the task/);

      const greyed = await greyedBySeq();
      expect(greyed.get(0)).toBe(false);
      expect(greyed.get(1)).toBe(false);
      let checked = 0;
      for (const [seq, isGreyed] of greyed) {
        expect(isGreyed, `message #${seq}`).toBe(seq < boundary && !kept.has(seq));
        checked++;
      }
      // Tool results are drawn inside their calls: fewer entries than seqs, some of them greyed.
      expect(checked).toBeGreaterThan(10);
      expect([...greyed.values()].filter(Boolean).length).toBeGreaterThan(0);
      // The inspector beside it holds both kept messages.
      const inspector = page.locator(byTestId("context-inspector"));
      await inspector
        .locator(`${byTestId("context-message")}[data-mark="pinned"]`)
        .waitFor({ timeout: UI_TIMEOUT });
      expect(await inspector.locator(`${byTestId("context-message")}[data-mark="system"]`).count()).toBe(1);
      await notice.scrollIntoViewIfNeeded();
      await screenshot(page, "map-kept-wide");
      expect(pageErrors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    "shows one token figure on the card and the gauge after /compact, live and after a reload",
    async () => {
      if (!finished) throw new Error("the first test did not finish its thread");
      const { threadId, agentId } = finished;
      // Every read of the agent's compaction list, by its query (the page holds the list and reads only
      // what is new after a compaction completes).
      const compactionReads: URL[] = [];
      const countRead = (request: { url(): string }) => {
        const url = new URL(request.url());
        if (url.pathname === `/v1/agents/${agentId}/compactions`) compactionReads.push(url);
      };
      page.on("request", countRead);
      await showThread(threadId);
      const held = await client.agents.compactions(agentId);
      await expect.poll(() => compactionReads.length, { timeout: UI_TIMEOUT }).toBe(1);
      expect(compactionReads[0]?.searchParams.get("offset")).toBeNull();
      const card = page.locator(
        `${byTestId("agent-node")}[data-agent-id="${agentId}"] ${byTestId("agent-activity")}`,
      );
      const gauge = page.locator(byTestId("context-gauge"));
      await gauge.locator(byTestId("token-as-of")).waitFor({ timeout: UI_TIMEOUT });
      const before = Number(await gauge.getAttribute("data-tokens"));
      expect(Number(await card.getAttribute("data-tokens"))).toBe(before);

      const run = await client.agents.compact(agentId);
      await waitForIdle(client, threadId);
      const after = (await client.agents.compactions(agentId)).at(-1);
      if (!after) throw new Error("no compaction");
      expect(after.tokensAfter).toBeLessThan(before);
      expect(run.runId).toBeTruthy();
      const figures = async () => [
        Number(await card.getAttribute("data-tokens")),
        Number(await gauge.getAttribute("data-tokens")),
      ];
      await expect.poll(figures, { timeout: UI_TIMEOUT }).toEqual([after.tokensAfter, after.tokensAfter]);
      expect(await gauge.locator(byTestId("token-as-of")).textContent()).toMatch(/after the compaction/);
      expect(await card.textContent()).toMatch(/after compaction/);
      // The new compaction's summary is shown, read alone: one more read, of what follows those held.
      await page
        .locator(
          `${byTestId("compaction-notice")}[data-compaction-id="${after.id}"] ${byTestId("compaction-summary")}`,
        )
        .waitFor({ timeout: UI_TIMEOUT });
      expect(compactionReads.map((url) => url.searchParams.get("offset"))).toEqual([
        null,
        String(held.length),
      ]);
      page.off("request", countRead);

      // A reload reads the snapshot: the card must not fall back to the measurement from before.
      await page.reload();
      await page
        .locator(`${byTestId("thread-view")}[data-thread-id="${threadId}"][data-history-loaded="true"]`)
        .waitFor({ timeout: UI_TIMEOUT });
      await expect.poll(figures, { timeout: UI_TIMEOUT }).toEqual([after.tokensAfter, after.tokensAfter]);
      await screenshot(page, "map-after-compact-wide");
      expect(pageErrors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    "says in the header what a run waits for, with Approve and Deny, announced and on a phone",
    async () => {
      const thread = await client.threads.create({
        title: "Blocked on a decision",
        model: "sim",
        simScript: "approval",
        simSteps: 6,
        maxInputTokens: 8000,
        task: "List the workspace files with a shell command, then report.",
      });
      await showThread(thread.id);
      const blocker = page.locator(`${byTestId("blocked-on")} ${byTestId("blocker")}[data-kind="approval"]`);
      await blocker.waitFor({ timeout: UI_TIMEOUT });
      // Not "running": the header and the run chip say what it waits for, and who.
      expect(await page.locator(byTestId("thread-status")).textContent()).toBe("waiting for you");
      expect(await page.locator(byTestId("run-chip")).textContent()).toMatch(/waiting for your decision/);
      expect(await blocker.textContent()).toMatch(/Waiting for you:.*run_command/);
      const region = page.locator(byTestId("blocked-on"));
      expect(await region.getAttribute("role")).toBe("status");
      expect(await region.getAttribute("aria-live")).toBe("polite");
      // Not only in a tooltip: on a phone, the reason and its buttons are on screen in the header.
      await page.setViewportSize(NARROW);
      await page.evaluate("window.scrollTo(0, 0)");
      for (const id of ["blocker-approve", "blocker-deny"]) {
        const box = await blocker.locator(byTestId(id)).boundingBox();
        expect(box, id).not.toBeNull();
        expect((box?.x ?? -1) + (box?.width ?? 0)).toBeLessThanOrEqual(NARROW.width);
        expect((box?.y ?? -1) + (box?.height ?? 0)).toBeLessThanOrEqual(NARROW.height);
        expect(box?.y ?? -1).toBeGreaterThanOrEqual(0);
      }
      await screenshot(page, "map-blocked-narrow");
      await page.setViewportSize(WIDE);
      await screenshot(page, "map-blocked-wide");
      // Approved from the header: the line goes and the run goes on to the end.
      await blocker.locator(byTestId("blocker-approve")).click();
      await blocker.waitFor({ state: "detached", timeout: UI_TIMEOUT });
      await waitForIdle(client, thread.id);
      await expect
        .poll(() => page.locator(byTestId("thread-status")).textContent(), { timeout: UI_TIMEOUT })
        .toMatch(/idle|completed/);
      expect(pageErrors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    "maps the next request into its parts, with the tokens the server's projection gives each",
    async () => {
      if (!finished) throw new Error("the first test did not finish its thread");
      const { threadId, agentId } = finished;
      const view = await client.agents.context(agentId);
      const expected = Object.fromEntries((view.parts ?? []).map((part) => [part.part, part.tokens]));
      // A compacted thread's request: every kind of part is there and has a size.
      for (const part of ["system", "tools", "pinned", "summary", "ledger", "recent"]) {
        expect(expected[part], part).toBeGreaterThan(0);
      }
      await showThread(threadId);
      const map = page.locator(`${byTestId("context-inspector")} ${byTestId("context-map")}`);
      await map.waitFor({ timeout: UI_TIMEOUT });
      const shown = () =>
        map
          .locator(byTestId("context-map-part"))
          .evaluateAll((nodes) =>
            Object.fromEntries(
              nodes.map((node) => [node.getAttribute("data-part"), Number(node.getAttribute("data-tokens"))]),
            ),
          );
      await expect.poll(shown, { timeout: UI_TIMEOUT }).toEqual(expected);
      // Drawn in the request's order, each part as wide as its share of the window.
      const widths = await map
        .locator(byTestId("context-map-part"))
        .evaluateAll((nodes) => nodes.map((node) => node.getBoundingClientRect().width));
      const bar = await map.locator(".context-map-bar").boundingBox();
      const parts = view.parts ?? [];
      const scale = Math.max(
        view.maxInputTokens ?? 0,
        parts.reduce((sum, part) => sum + part.tokens, 0),
      );
      parts.forEach((part, index) => {
        expect(widths[index]).toBeCloseTo(Math.max(2, ((bar?.width ?? 0) * part.tokens) / scale), 0);
      });
      expect(await map.textContent()).toMatch(/working-state ledger/);
      await map.scrollIntoViewIfNeeded();
      await screenshot(page, "map-context-wide");
      await page.setViewportSize(NARROW);
      await map.scrollIntoViewIfNeeded();
      await screenshot(page, "map-context-narrow");
      await page.setViewportSize(WIDE);
      expect(pageErrors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    "closes the Approvals popover on Escape, an outside press and a thread change, and keeps Refresh clear",
    async () => {
      if (!finished) throw new Error("the first test did not finish its thread");
      await showThread(finished.threadId);
      const button = page.locator(byTestId("inbox-button"));
      const popover = page.locator(byTestId("approval-inbox"));
      await button.click();
      await popover.waitFor();
      // Beside the inspector, not over its Refresh button.
      const panel = await popover.boundingBox();
      const refresh = await page.locator(byTestId("context-refresh")).boundingBox();
      if (!panel || !refresh) throw new Error("popover or Refresh not drawn");
      const overlaps =
        panel.x < refresh.x + refresh.width &&
        refresh.x < panel.x + panel.width &&
        panel.y < refresh.y + refresh.height &&
        refresh.y < panel.y + panel.height;
      expect(overlaps).toBe(false);
      await screenshot(page, "map-inbox-open-wide");

      await page.keyboard.press("Escape");
      await popover.waitFor({ state: "detached" });
      expect(await button.evaluate((element) => element === element.ownerDocument.activeElement)).toBe(true);

      await button.click();
      await popover.waitFor();
      await page.locator(`${byTestId("thread-view")} h1`).click();
      await popover.waitFor({ state: "detached" });

      await button.click();
      await popover.waitFor();
      // Another thread opens without a press outside (a link, the history): the popover goes with the view.
      const other = page.locator(byTestId("thread-item")).filter({ hasNotText: "Kept messages" }).first();
      const otherId = await other.getAttribute("data-thread-id");
      await page.evaluate(`window.location.hash = "#/threads/${otherId}"`);
      await page.locator(`${byTestId("thread-view")}[data-thread-id="${otherId}"]`).waitFor();
      await popover.waitFor({ state: "detached" });
      expect(pageErrors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    "shows a call the person denied as denied, not as a red error like a failure",
    async () => {
      const thread = await client.threads.create({
        title: "Denied call",
        model: "sim",
        simScript: "approval",
        simSteps: 6,
        maxInputTokens: 8000,
        task: "List the workspace files with a shell command, then report.",
      });
      await showThread(thread.id);
      const blocker = page.locator(`${byTestId("blocked-on")} ${byTestId("blocker")}[data-kind="approval"]`);
      await blocker.waitFor({ timeout: UI_TIMEOUT });
      const callId = await blocker.locator(byTestId("blocker-deny")).getAttribute("data-call-id");
      await blocker.locator(byTestId("blocker-deny")).click();
      await waitForIdle(client, thread.id);
      const call = page.locator(`${byTestId("tool-call")}[data-call-id="${callId}"]`);
      await expect.poll(() => call.getAttribute("data-status"), { timeout: UI_TIMEOUT }).toBe("denied");
      expect(await call.locator(".badge").first().textContent()).toBe("denied by you");
      // The same after a reload, from the log.
      await page.reload();
      await page
        .locator(`${byTestId("thread-view")}[data-thread-id="${thread.id}"][data-history-loaded="true"]`)
        .waitFor({ timeout: UI_TIMEOUT });
      await expect.poll(() => call.getAttribute("data-status"), { timeout: UI_TIMEOUT }).toBe("denied");
      await call.scrollIntoViewIfNeeded();
      await screenshot(page, "map-denied-wide");
      expect(pageErrors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    "clears a form error once the field is fixed, and keeps the list's 'ago' moving",
    async () => {
      const quiet = await client.threads.create({
        title: "Quiet",
        model: "sim",
        simSteps: 2,
        task: "Say hi.",
      });
      await waitForIdle(client, quiet.id);
      await page.goto(`${new URL(server!.instance().url).origin}/#/`);
      const form = page.locator(byTestId("create-thread"));
      await form.waitFor({ timeout: UI_TIMEOUT });
      // A workspace outside the allowed roots is refused by the server; the error names it.
      await form.locator(byTestId("create-workspace")).fill("/etc");
      await form.locator(byTestId("create-submit")).click();
      const error = form.locator(byTestId("create-error"));
      await error.waitFor({ timeout: UI_TIMEOUT });
      expect(await error.textContent()).toMatch(/\S/);
      // Fixed: the error about the old value goes without another submit.
      await form.locator(byTestId("create-workspace")).fill("");
      await error.waitFor({ state: "detached", timeout: UI_TIMEOUT });

      // Nothing happens in the list, yet its "ago" keeps counting.
      const ago = page.locator(
        `${byTestId("thread-item")}[data-thread-id="${quiet.id}"] ${byTestId("thread-ago")}`,
      );
      const first = await ago.textContent();
      await expect.poll(() => ago.textContent(), { timeout: UI_TIMEOUT }).not.toBe(first);
      expect(pageErrors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    "gives focus back to the link that opened the history dialog when it closes",
    async () => {
      if (!finished) throw new Error("the first test did not finish its thread");
      await showThread(finished.threadId);
      const link = page
        .locator(
          `${byTestId("compaction-notice")}[data-phase="completed"] ${byTestId("compaction-history-link")}`,
        )
        .last();
      await link.waitFor({ timeout: UI_TIMEOUT });
      // Focus and Enter in one action on the link as it is then (a re-render between a separate focus()
      // and a page-level key press sends the key to whatever has focus by then).
      await link.press("Enter");
      const dialog = page.locator(byTestId("history-panel"));
      await dialog.waitFor();
      await page.keyboard.press("Escape");
      await dialog.waitFor({ state: "detached" });
      await expect
        .poll(() => link.evaluate((element) => element === element.ownerDocument.activeElement))
        .toBe(true);
      expect(pageErrors).toEqual([]);
    },
    TEST_TIMEOUT,
  );
});
