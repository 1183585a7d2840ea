import type { LongrunClient } from "@longrun/client";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DashboardSession, openDashboardSession } from "./support/dashboard-session.ts";
import {
  NARROW,
  screenshot,
  transcriptDistanceFromBottom,
  UI_TIMEOUT,
  WIDE,
} from "./support/page-helpers.ts";
import type { BrowserServer } from "./support/servers.ts";
import {
  byTestId,
  installRecorders,
  openThread,
  resetSeen,
  seen,
  waitForIdle,
} from "./support/watch-helpers.ts";

// What the dashboard shows must be true: re-opening a finished thread, a thread that does not exist, a
// /compact with nothing to do, a long live run read while it streams, and failures from before a reconnect.

const TEST_TIMEOUT = 300_000;
/** The transcript draws a list this long whole (`DRAW_ALL_UNDER` in the dashboard's use-virtual-list). */
const DRAW_ALL_UNDER = 200;

let session: DashboardSession | undefined;
let server: BrowserServer | undefined;
let client: LongrunClient;
let page: Page;
let pageErrors: string[] = [];

beforeAll(async () => {
  session = await openDashboardSession({ simDelayMs: 5, home: true, beforeHome: installRecorders });
  ({ server, client, page, pageErrors } = session);
}, 300_000);

afterAll(async () => {
  await session?.close();
}, 60_000);

async function createThread(title: string, simSteps: number, maxInputTokens = 8000) {
  const thread = await client.threads.create({
    title,
    model: "sim",
    simSteps,
    maxInputTokens,
    task: "Survey the inventory service and report its modules, tests and docs.",
  });
  return thread.id;
}

/**
 * The first assistant message whose top is in the transcript's view, and how far below the view's top
 * it is. (Not a tool result: one read without its call stands alone until the call is read.)
 */
function topMessage(page: Page): Promise<{ id: string; offset: number }> {
  return page.locator(byTestId("transcript")).evaluate((element) => {
    const top = element.getBoundingClientRect().top;
    const entry = [...element.querySelectorAll('[data-message-id][data-role="assistant"]')].find(
      (node) => node.getBoundingClientRect().top >= top,
    );
    return {
      id: entry?.getAttribute("data-message-id") ?? "",
      offset: (entry?.getBoundingClientRect().top ?? 0) - top,
    };
  });
}

/** How far below the transcript view's top a message is now (NaN when it is not drawn). */
function offsetOfMessage(page: Page, id: string): Promise<number> {
  return page.locator(byTestId("transcript")).evaluate((element, messageId) => {
    const entry = element.querySelector(`[data-message-id="${messageId}"]`);
    return (entry?.getBoundingClientRect().top ?? Number.NaN) - element.getBoundingClientRect().top;
  }, id);
}

describe("what the dashboard shows is true", () => {
  it(
    "re-opens a finished long thread as it is, and shows each compaction as a diff",
    async () => {
      const threadId = await createThread("Finished survey", 150);
      await waitForIdle(client, threadId);
      await page.goto(`${new URL(server!.instance().url).origin}/#/`);
      await page.locator(`${byTestId("thread-item")}[data-thread-id="${threadId}"]`).waitFor();
      await resetSeen(page);
      await openThread(page, threadId);
      const recorded = await seen(page);
      // Never "running", never a Cancel button or a running call, never an empty context bar.
      expect(recorded.statuses).toHaveLength(1);
      expect(recorded.statuses[0]).toMatch(/^(idle|completed)$/);
      expect(recorded.cancel).toBe(0);
      expect(recorded.runningTools).toBe(0);
      expect(recorded.emptyGauge).toBe(0);
      expect(await page.locator(byTestId("history-syncing")).count()).toBe(0);

      // The compaction diff: the range it removed, the summary and ledger, and the messages greyed.
      const notice = page.locator(`${byTestId("compaction-notice")}[data-phase="completed"]`).last();
      await notice.waitFor();
      const removed = (await notice.locator(byTestId("compaction-removed")).textContent()) ?? "";
      const [, from, to] = removed.match(/messages #(\d+)–#(\d+)/) ?? [];
      expect(Number(to)).toBeGreaterThan(Number(from));
      await notice.locator(`${byTestId("compaction-summary")} summary`).click();
      expect(
        ((await notice.locator(`${byTestId("compaction-summary")} pre`).textContent()) ?? "").length,
      ).toBeGreaterThan(50);
      expect(await notice.locator(byTestId("compaction-deterministic")).textContent()).toMatch(
        /summary's alone/,
      );
      expect(await notice.locator(byTestId("compaction-request")).textContent()).toMatch(/as of step \d+/);
      const earlier = page.locator(byTestId("transcript-show-earlier"));
      while ((await earlier.count()) > 0) await earlier.click();
      expect(
        await page.locator(`${byTestId("transcript-entry")}[data-compacted="true"]`).count(),
      ).toBeGreaterThan(0);
      // The reader scrolls up to the notice (a wheel, so the transcript stops following).
      const box = await page.locator(byTestId("transcript")).boundingBox();
      await page.mouse.move((box?.x ?? 0) + 50, (box?.y ?? 0) + 50);
      await page.mouse.wheel(0, -400);
      await notice.scrollIntoViewIfNeeded();
      await screenshot(page, "compaction-wide");

      // The chart: hovering shows a step's figures, clicking focuses that step's entry in the transcript.
      const chart = page.locator(byTestId("token-chart"));
      const chartBox = await chart.boundingBox();
      await page.mouse.move((chartBox?.x ?? 0) + (chartBox?.width ?? 0) * 0.5, (chartBox?.y ?? 0) + 40);
      await page.locator(byTestId("chart-crosshair")).waitFor({ state: "attached" });
      expect(await page.locator(byTestId("chart-readout")).textContent()).toMatch(/^step \d+: .* projected/);
      await page.mouse.click((chartBox?.x ?? 0) + (chartBox?.width ?? 0) * 0.5, (chartBox?.y ?? 0) + 40);
      await expect
        .poll(() =>
          page.evaluate(() =>
            (
              globalThis as unknown as {
                document: { activeElement: { getAttribute(name: string): string | null } };
              }
            ).document.activeElement.getAttribute("data-testid"),
          ),
        )
        .toBe("transcript-entry");

      // Its link opens that part of the history in a dialog, which Escape closes.
      await notice.locator(byTestId("compaction-history-link")).click();
      const dialog = page.locator(`dialog${byTestId("history-panel")}[open]`);
      await dialog.locator(byTestId("history-message")).first().waitFor();
      const seqs = (await dialog
        .locator(byTestId("history-message"))
        .evaluateAll((nodes) => nodes.map((node) => Number(node.getAttribute("data-seq"))))) as number[];
      expect(seqs.every((seq) => seq >= Number(from) && seq <= Number(to))).toBe(true);
      await page.keyboard.press("Escape");
      await dialog.waitFor({ state: "detached" });

      // Search and filters narrow the transcript; arrow keys move between entries.
      await page.locator(byTestId("transcript-search")).fill("write_file");
      await page.locator(byTestId("transcript-matches")).waitFor();
      const texts = await page.locator(byTestId("transcript-entry")).allTextContents();
      expect(texts.length).toBeGreaterThan(0);
      expect(texts.every((text) => text.includes("write_file"))).toBe(true);
      await page.locator(byTestId("transcript-search")).fill("");
      await page.locator(byTestId("transcript-filter")).selectOption("compactions");
      await expect.poll(() => page.locator(byTestId("transcript-entry")).count()).toBe(0);
      expect(await page.locator(byTestId("compaction-notice")).count()).toBeGreaterThan(0);
      await page.locator(byTestId("transcript-filter")).selectOption("all");
      await page.locator(byTestId("transcript")).focus();
      await page.keyboard.press("End");
      await page.keyboard.press("ArrowUp");
      const focused = () =>
        page.evaluate(
          () =>
            (
              globalThis as unknown as {
                document: { activeElement: { getAttribute(name: string): string | null } };
              }
            ).document.activeElement.getAttribute("data-entry") !== null,
        );
      expect(await focused()).toBe(true);
      expect(pageErrors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    "opens a long log from its end and reads the older part when the reader asks for it",
    async () => {
      const threadId = await createThread("Long finished survey", 400);
      await waitForIdle(client, threadId);
      const origin = new URL(server!.instance().url).origin;
      const transcript = page.locator(byTestId("transcript"));
      const readFrom = async () => Number((await transcript.getAttribute("data-read-from")) || Number.NaN);
      const reopen = async () => {
        await page.goto(`${origin}/#/`);
        await openThread(page, threadId);
        await expect.poll(readFrom, { timeout: UI_TIMEOUT }).toBeGreaterThan(0);
      };
      const task = "Survey the inventory service";
      const seqsOf = (selector: string) =>
        page
          .locator(selector)
          .evaluateAll((nodes) => nodes.map((node) => Number(node.getAttribute("data-seq")))) as Promise<
          number[]
        >;

      // Opened: only the end of the log is read, and nothing older is on the page.
      await reopen();
      const tailFrom = await readFrom();
      expect(Math.min(...(await seqsOf(byTestId("transcript-entry"))))).toBeGreaterThan(tailFrom);

      // Searching covers the whole log: the older part is read, and the task at its start matches.
      await page.locator(byTestId("transcript-search")).fill(task);
      await expect.poll(readFrom, { timeout: UI_TIMEOUT }).toBe(-1);
      await expect
        .poll(async () => Math.min(...(await seqsOf(byTestId("transcript-entry")))), { timeout: UI_TIMEOUT })
        .toBeLessThanOrEqual(tailFrom);
      await page.locator(byTestId("transcript-search")).fill("");

      // A step near the start picked on the chart is read, shown and focused.
      await reopen();
      const chartBox = await page.locator(byTestId("token-chart")).boundingBox();
      await page.mouse.click((chartBox?.x ?? 0) + (chartBox?.width ?? 0) * 0.04, (chartBox?.y ?? 0) + 40);
      const picked = page.locator(`${byTestId("transcript-entry")}:focus`);
      await picked.waitFor({ timeout: UI_TIMEOUT });
      const pickedSeq = Number(await picked.getAttribute("data-seq"));
      expect(pickedSeq).toBeLessThanOrEqual(tailFrom);
      expect(await readFrom()).toBeLessThan(pickedSeq);

      // "Show earlier" reads further back, page by page, down to the first message; what is read in
      // above the reader does not move what they read.
      await reopen();
      const earlier = page.locator(byTestId("transcript-show-earlier"));
      const box = await transcript.boundingBox();
      await page.mouse.move((box?.x ?? 0) + 50, (box?.y ?? 0) + 50);
      await page.mouse.wheel(0, -1_000_000);
      await expect.poll(() => transcript.getAttribute("data-following")).toBe("false");
      // Compactions older than every message read so far stand first; the reader goes on to the first
      // message they have, which is where older messages will be read in above them.
      await expect
        .poll(
          () =>
            transcript.evaluate((element) => {
              const message = element.querySelector('[data-message-id][data-role="assistant"]');
              // Not drawn yet: a page further down, and look again once it is drawn.
              if (!message) element.scrollTop += element.clientHeight;
              else
                element.scrollTop +=
                  message.getBoundingClientRect().top - element.getBoundingClientRect().top - 40;
              return message !== null;
            }),
          { timeout: UI_TIMEOUT },
        )
        .toBe(true);
      await expect.poll(async () => (await topMessage(page)).id).not.toBe("");
      const reading = await topMessage(page);
      const entriesBefore = Number(await transcript.getAttribute("data-entries"));
      // Clicked where it is, out of view: the click itself must not scroll the reader.
      await earlier.dispatchEvent("click");
      await expect
        .poll(async () => Number(await transcript.getAttribute("data-entries")), { timeout: UI_TIMEOUT })
        .toBeGreaterThan(entriesBefore);
      expect(Math.abs((await offsetOfMessage(page, reading.id)) - reading.offset)).toBeLessThanOrEqual(1);
      await expect
        .poll(
          async () => {
            if ((await earlier.count()) === 0) return true;
            // The reader scrolls up to it (a wheel: the transcript stops following the end) and clicks
            // it once it is enabled (it is not while a part is being read).
            await page.mouse.wheel(0, -1_000_000);
            await earlier.click({ timeout: 2_000 }).catch(() => undefined);
            return false;
          },
          { timeout: UI_TIMEOUT },
        )
        .toBe(true);
      expect(await readFrom()).toBe(-1);
      // What was read in above the reader did not move them; the first message is at the top.
      await page.mouse.wheel(0, -1_000_000);
      const first = page.locator(byTestId("transcript-entry"));
      await expect.poll(() => first.first().getAttribute("data-seq"), { timeout: UI_TIMEOUT }).toBe("0");
      expect((await first.nth(1).textContent()) ?? "").toContain(task);
      expect(pageErrors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it("says plainly that a thread does not exist, without a disconnected pill", async () => {
    await page.goto(`${new URL(server!.instance().url).origin}/#/threads/no-such-thread`);
    await page.locator(byTestId("thread-not-found")).waitFor();
    expect(await page.locator(byTestId("connection-banner")).count()).toBe(0);
    expect(await page.locator(byTestId("connection-status")).textContent()).toBe("");
  });

  it(
    "a /compact with nothing to do is not a failure",
    async () => {
      const threadId = await createThread("Tiny", 2, 32_000);
      await waitForIdle(client, threadId);
      await page.goto(`${new URL(server!.instance().url).origin}/#/`);
      await openThread(page, threadId);
      await page.locator(byTestId("compact-button")).click();
      await page
        .locator(`${byTestId("compaction-notice")}[data-phase="skipped"]`)
        .waitFor({ timeout: UI_TIMEOUT });
      await expect
        .poll(() => page.locator(byTestId("action-notice")).getAttribute("data-state"), {
          timeout: UI_TIMEOUT,
        })
        .toBe("skipped");
      expect(await page.locator(".compaction-notice.phase-failed").count()).toBe(0);
      await page.locator(byTestId("nav-ops")).click();
      await page.locator(byTestId("ops-view")).waitFor();
      expect(await page.locator(byTestId("ops-view")).textContent()).not.toContain("nothing to compact");
    },
    TEST_TIMEOUT,
  );

  it(
    "during a live 1,000-step run: each call drawn once, a read entry never moves, Cancel leaves a marker",
    async () => {
      const threadId = await createThread("Long live run", 1000);
      await page.goto(`${new URL(server!.instance().url).origin}/#/`);
      await openThread(page, threadId);
      await resetSeen(page);
      const transcript = page.locator(byTestId("transcript"));
      await expect
        .poll(async () => Number(await transcript.getAttribute("data-entries")), { timeout: 120_000 })
        .toBeGreaterThan(DRAW_ALL_UNDER + 50);

      // The reader scrolls up and reads an entry; output keeps arriving below.
      const box = await transcript.boundingBox();
      await page.mouse.move((box?.x ?? 0) + (box?.width ?? 0) / 2, (box?.y ?? 0) + (box?.height ?? 0) / 2);
      await page.mouse.wheel(0, -900);
      await expect.poll(() => transcript.getAttribute("data-following")).toBe("false");
      const anchor = await topMessage(page);
      const entriesThen = Number(await transcript.getAttribute("data-entries"));
      await expect
        .poll(async () => Number(await transcript.getAttribute("data-entries")), { timeout: 120_000 })
        .toBeGreaterThan(entriesThen + 10);
      await page.locator(byTestId("jump-to-latest")).waitFor();
      // The list is virtual: only the entries near the view are in the page.
      const drawn = Number(await transcript.getAttribute("data-drawn"));
      expect(drawn).toBe(await page.locator(`${byTestId("transcript")} [data-vkey]`).count());
      expect(drawn).toBeLessThan(entriesThen / 2);
      const offsetNow = await offsetOfMessage(page, anchor.id);
      expect(Math.abs(offsetNow - anchor.offset)).toBeLessThanOrEqual(1);
      await screenshot(page, "reading-during-run-wide");

      await page.locator(byTestId("jump-to-latest")).click();
      await expect.poll(() => transcript.getAttribute("data-following")).toBe("true");
      await expect.poll(() => transcriptDistanceFromBottom(page)).toBeLessThan(40);

      await page.setViewportSize(NARROW);
      await screenshot(page, "live-run-narrow");
      await page.setViewportSize(WIDE);
      // A /compact sent during the run says it waits behind it, and follows its run to the end.
      await page.locator(byTestId("compact-button")).click();
      await expect
        .poll(() => page.locator(byTestId("action-notice")).getAttribute("data-state"), {
          timeout: UI_TIMEOUT,
        })
        .toBe("queued");
      expect(await page.locator(byTestId("action-notice")).textContent()).toContain("behind the running run");
      await page
        .locator(`${byTestId("run-chip")}[data-status="running"] ${byTestId("cancel-run-button")}`)
        .click();
      await page
        .locator(`${byTestId("run-marker")}[data-status="cancelled"]`)
        .waitFor({ timeout: UI_TIMEOUT });
      await expect
        .poll(() => page.locator(byTestId("action-notice")).getAttribute("data-state"), {
          timeout: UI_TIMEOUT,
        })
        .toMatch(/^(completed|skipped)$/)
        .catch(async (error: Error) => {
          // What the server says happened to the runs, beside what the page shows.
          const events: Awaited<ReturnType<LongrunClient["threads"]["events"]>> = [];
          for (let page = 0; page < 50; page++) {
            const batch = await client.threads.events(threadId, {
              types: "run.*,compaction.*,agent.status,breaker.*",
              since: events.at(-1)?.seq ?? -1,
              limit: 1000,
            });
            events.push(...batch);
            if (batch.length < 1000) break;
          }
          const tail = events
            .slice(-25)
            .map((event) => `${event.seq} ${event.type} ${JSON.stringify(event.data).slice(0, 160)}`);
          throw new Error(`${error.message}\nthe server's last run/compaction events:\n${tail.join("\n")}`);
        });
      await page.locator(`${byTestId("run-history")} summary`).click();
      await page.locator(`${byTestId("run-history-item")}[data-status="cancelled"]`).waitFor();
      expect((await seen(page)).dupes).toEqual([]);
      expect(pageErrors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    "after a reconnect, no failure from before it stays on screen",
    async () => {
      await page.locator(`${byTestId("connection-status")}.status-open`).waitFor();
      await server!.stop();
      await page.locator(`${byTestId("connection-banner")}[data-status="reconnecting"]`).waitFor();
      await page.locator(byTestId("context-refresh")).click();
      await page.locator(byTestId("composer-input")).fill("are you there?");
      await page.locator(byTestId("send-button")).click();
      await page.locator(`${byTestId("composer-status")}.error`).waitFor();
      expect(await page.locator(".error", { hasText: /fetch|network/i }).count()).toBeGreaterThan(0);
      await server!.start();
      await page.locator(byTestId("connection-banner")).waitFor({ state: "detached", timeout: 120_000 });
      // The failures of calls made while it was down are gone (a run's own failure would stay: it is true).
      await expect
        .poll(() => page.locator(".error", { hasText: /fetch|network/i }).count(), { timeout: UI_TIMEOUT })
        .toBe(0);
    },
    TEST_TIMEOUT,
  );
});
