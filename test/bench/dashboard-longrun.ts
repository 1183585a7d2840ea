import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { loadConfig, startEmbedded } from "@longrun/cli";
import { createClient, type LongrunClient } from "@longrun/client";
import type { Page } from "playwright-core";
import { launchChromium } from "../browser/support/chromium.ts";
import { ensureDashboardBuilt } from "../browser/support/dashboard-build.ts";
import {
  type FrameFigures,
  idleFrames,
  jumpToFirstError,
  jumpToStep,
  SCROLL_MS,
  scrollFrames,
  WHEEL_EVERY_MS,
  WHEEL_PX,
} from "./dashboard-frames.ts";
import { profiled } from "./dashboard-profile.ts";
import { formatMs, renderTable } from "./stats.ts";

// The dashboard on a long thread, in real Chromium against an embedded server: time to open (from a
// fresh page load to the snapshot view, the first transcript entries and the history read), frame times
// while the reader scrolls the transcript during a live run, and the page's memory. Each figure is
// reported beside the same figure for a short thread in the same run (the baseline): the ratios are
// what to compare across machines, the absolute numbers belong to this one.

const RESULTS = fileURLToPath(new URL("./results/dashboard-longrun.json", import.meta.url));
const VIEWPORT = { width: 1440, height: 900 };
const TASK = "Survey the inventory service and report its modules, tests and docs.";

interface OpenFigures {
  /** When the snapshot's response had arrived (resource timing): the server's share of `viewMs`. */
  snapshotMs: number;
  viewMs: number;
  entriesMs: number;
  historyMs: number;
  heapMb: number;
  domNodes: number;
}

async function waitIdle(client: LongrunClient, threadId: string, label: string): Promise<number> {
  const started = performance.now();
  let lastLog = started;
  for (;;) {
    const detail = await client.threads.get(threadId);
    if (detail.runs.length > 0 && detail.runs.every((run) => run.finishedAt !== null)) {
      return performance.now() - started;
    }
    if (performance.now() - lastLog > 15_000) {
      lastLog = performance.now();
      const events = await client.threads.eventsPage(threadId, { since: 0, limit: 1 });
      console.log(
        `  ${label}: still running (${Math.round((lastLog - started) / 1000)} s, next seq ${events.nextSince})`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/** Loads the page fresh on a thread and times what appears, from navigation start (ms). */
async function openFigures(page: Page, origin: string, threadId: string): Promise<OpenFigures> {
  await page.goto(`${origin}/#/`);
  await page.locator('[data-testid="thread-list"]').waitFor();
  await page.goto("about:blank");
  await page.goto(`${origin}/#/threads/${threadId}`);
  await page
    .locator(`[data-testid="thread-view"][data-thread-id="${threadId}"]`)
    .waitFor({ timeout: 120_000 });
  await page.locator('[data-testid="transcript-entry"]').first().waitFor({ timeout: 120_000 });
  await page.locator('[data-testid="thread-view"][data-history-loaded="true"]').waitFor({ timeout: 300_000 });
  // Stamped inside the page when each part entered the DOM (a wait from outside would also count the
  // time the page's main thread was busy after it).
  const marks = (await page.evaluate("window.__marks")) as { view: number; entries: number; history: number };
  const viewMs = marks.view;
  const entriesMs = marks.entries;
  const historyMs = marks.history;
  const snapshotMs = (await page.evaluate(
    `Math.round(Math.max(0, ...performance.getEntriesByType("resource").filter((entry) => entry.name.includes("/snapshot")).map((entry) => entry.responseEnd)))`,
  )) as number;
  const session = await page.context().newCDPSession(page);
  await session.send("HeapProfiler.collectGarbage");
  await session.send("Performance.enable");
  const { metrics } = await session.send("Performance.getMetrics");
  const metric = (name: string) => metrics.find((entry) => entry.name === name)?.value ?? 0;
  await session.detach();
  return {
    snapshotMs,
    viewMs,
    entriesMs,
    historyMs,
    heapMb: metric("JSHeapUsedSize") / 1024 / 1024,
    domNodes: metric("Nodes"),
  };
}

/** Records, from inside the page, when the thread view, its first entries and its full history appeared. */
const MARKS_SCRIPT = `document.addEventListener("DOMContentLoaded", () => {
  const marks = (window.__marks = {});
  new MutationObserver(() => {
    const now = performance.now();
    if (marks.view === undefined && document.querySelector('[data-testid="thread-view"]')) marks.view = now;
    if (marks.entries === undefined && document.querySelector('[data-testid="transcript-entry"]')) marks.entries = now;
    if (marks.history === undefined && document.querySelector('[data-history-loaded="true"]')) marks.history = now;
  }).observe(document, { subtree: true, childList: true, attributes: true });
});`;

/**
 * Keeps the long thread working while `during` runs: whenever it has no run under way, it gets another
 * task. Returns what `during` returned, the events the thread logged meanwhile and the share of the time
 * a run was under way (checked every 250 ms).
 */
async function whileStreaming<Result>(
  client: LongrunClient,
  threadId: string,
  during: () => Promise<Result>,
): Promise<{ result: Result; events: number; runningShare: number; tasks: number }> {
  const before = (await client.threads.snapshot(threadId)).headSeq;
  let done = false;
  let checks = 0;
  let running = 0;
  let tasks = 0;
  const keeper = (async () => {
    while (!done) {
      const detail = await client.threads.get(threadId);
      checks++;
      if (detail.runs.some((run) => run.finishedAt === null)) running++;
      else {
        tasks++;
        await client.threads.sendMessage(threadId, { content: "Survey it again and report." });
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  })();
  try {
    const result = await during();
    return {
      result,
      events: (await client.threads.snapshot(threadId)).headSeq - before,
      runningShare: checks > 0 ? running / checks : 0,
      tasks,
    };
  } finally {
    done = true;
    await keeper;
  }
}

/** `npm run bench -- dashboard-longrun`. */
export async function runDashboardLongrunBench(options: { steps: number; baselineSteps: number }) {
  await ensureDashboardBuilt();
  const dataDir = await mkdtemp(join(tmpdir(), "longrun-dash-bench-"));
  const instance = await startEmbedded(loadConfig({ PORT: "0", LONGRUN_DATA_DIR: dataDir }));
  const client = createClient({ baseUrl: instance.url, token: instance.token });
  const origin = new URL(instance.url).origin;
  const browser = await launchChromium();
  try {
    const create = (title: string, simSteps: number) =>
      client.threads.create({ title, model: "sim", simSteps, maxInputTokens: 8000, task: TASK });
    const base = await create("baseline", options.baselineSteps);
    const long = await create("long", options.steps);
    await waitIdle(client, base.id, "baseline");
    const runMs = await waitIdle(client, long.id, `${options.steps}-step thread`);
    const head = (await client.threads.snapshot(long.id)).headSeq;
    console.log(`  ${options.steps}-step thread done in ${Math.round(runMs / 1000)} s, ${head} events`);

    const context = await browser.newContext({ viewport: VIEWPORT });
    await context.addInitScript({ content: MARKS_SCRIPT });
    const page = await context.newPage();
    await page.goto(instance.dashboardUrl);
    await page.locator('[data-testid="thread-list"]').waitFor();
    // One warm-up load (the bundle into the cache), then the measured ones.
    await openFigures(page, origin, base.id);
    const baseOpen = await openFigures(page, origin, base.id);
    const longOpen = await openFigures(page, origin, long.id);
    const baseRestFrames = await scrollFrames(await reopen(page, origin, base.id));
    // The baseline during a run too (its page open, another task, scrolled while it streams), so the
    // ratio compares like with like: the same machine load and the same streaming, a short log.
    await client.threads.sendMessage(base.id, { content: "Survey it again and report." });
    await page.locator('[data-testid="run-chip"][data-status="running"]').waitFor({ timeout: 60_000 });
    const baseStreamed = await profiled(browser, page, "the baseline's run", () =>
      whileStreaming(client, base.id, () => scrollFrames(page)),
    );
    const baseFrames = baseStreamed.result;
    await cancelRuns(client, base.id);
    await waitIdle(client, base.id, "baseline");
    console.log(
      `  baseline: scrolling at rest p95 ${formatMs(baseRestFrames.p95)} max ${formatMs(baseRestFrames.max)}; during its run p95 ${formatMs(baseFrames.p95)} max ${formatMs(baseFrames.max)} (${baseStreamed.events} events streamed, a run under way ${Math.round(baseStreamed.runningShare * 100)} % of the window)`,
    );
    // The long thread at rest: the page's idle frame time, scrolling, and the navigator's jumps (to the
    // start of the log, which is read on demand, and to the first error when there is one).
    await reopen(page, origin, long.id);
    const idle = await idleFrames(page);
    const restFrames = await scrollFrames(page);
    await reopen(page, origin, long.id);
    const jumpStartMs = await jumpToStep(page, 1);
    await reopen(page, origin, long.id);
    const jumpErrorMs = await jumpToFirstError(page);
    console.log(
      `  long thread at rest: idle frame p50 ${formatMs(idle.p50)} p95 ${formatMs(idle.p95)}; scrolling p50 ${formatMs(restFrames.p50)} p95 ${formatMs(restFrames.p95)} p99 ${formatMs(restFrames.p99)} max ${formatMs(restFrames.max)} (${restFrames.frames} frames, ${restFrames.over50ms} over 50 ms)`,
    );
    console.log(
      `  navigator: jump to step 1 ${jumpStartMs < 0 ? "n/a" : formatMs(jumpStartMs)}; first error ${jumpErrorMs === -1 ? "none in this run" : jumpErrorMs === -2 ? "not reached in 60 s" : formatMs(jumpErrorMs)}`,
    );

    // During a run: the page is open on the long thread (as a reader watching it), the thread gets another
    // task, and a reader scrolls with the wheel while its events stream in. The thread is kept working
    // for the whole measured window (another task whenever a run ends), so every frame is "during a run".
    await reopen(page, origin, long.id);
    await client.threads.sendMessage(long.id, { content: "Survey it again and report." });
    await page.locator('[data-testid="run-chip"][data-status="running"]').waitFor({ timeout: 60_000 });
    const streamed = await profiled(browser, page, "the long thread's run", () =>
      whileStreaming(client, long.id, () => scrollFrames(page)),
    );
    const longFrames = streamed.result;
    console.log(
      `  during the run: ${streamed.events} events streamed into the page in the ${SCROLL_MS / 1000} s window, a run under way ${Math.round(streamed.runningShare * 100)} % of it (${streamed.tasks} more task${streamed.tasks === 1 ? "" : "s"} sent to keep it working)`,
    );
    // Opening the page while the run goes on (a reader arriving mid-run).
    const reopenStarted = performance.now();
    await reopen(page, origin, long.id);
    console.log(`  re-opened during the run in ${Math.round(performance.now() - reopenStarted)} ms`);
    await cancelRuns(client, long.id);

    const rows = [
      row(`${options.baselineSteps} steps (baseline)`, baseOpen, baseFrames),
      row(`${options.steps} steps`, longOpen, longFrames),
      [
        "ratio",
        ratio(longOpen.snapshotMs, baseOpen.snapshotMs),
        ratio(longOpen.viewMs, baseOpen.viewMs),
        ratio(longOpen.entriesMs, baseOpen.entriesMs),
        ratio(longOpen.historyMs, baseOpen.historyMs),
        ratio(longFrames.p95, baseFrames.p95),
        ratio(longFrames.max, baseFrames.max),
        ratio(longOpen.heapMb, baseOpen.heapMb),
        ratio(longOpen.domNodes, baseOpen.domNodes),
      ],
    ];
    console.log(
      renderTable(
        [
          "thread",
          "snapshot in",
          "view",
          "first entries",
          "history read",
          "frame p95",
          "frame max",
          "heap MB",
          "DOM nodes",
        ],
        rows,
      ),
    );
    console.log(
      `  frame p95/max: each thread's while a run streams into its open page; both scrolled with the mouse wheel (${WHEEL_PX} px every ${WHEEL_EVERY_MS} ms), timed in the page by requestAnimationFrame`,
    );
    console.log(
      `  frames while scrolling during the run: ${longFrames.frames} in ${SCROLL_MS / 1000} s, p50 ${formatMs(longFrames.p50)}, p99 ${formatMs(longFrames.p99)}, ${longFrames.over50ms} over 50 ms`,
    );
    await mkdir(fileURLToPath(new URL("./results/", import.meta.url)), { recursive: true });
    await writeFile(
      RESULTS,
      `${JSON.stringify(
        {
          steps: options.steps,
          events: head,
          runMs,
          baseOpen,
          longOpen,
          baseFrames,
          baseRestFrames,
          longFrames,
          idle,
          restFrames,
          streamedEvents: streamed.events,
          runningShare: streamed.runningShare,
          jumpStartMs,
          jumpErrorMs,
        },
        null,
        2,
      )}\n`,
    );
    await context.close();
  } finally {
    await browser.close();
    await instance.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function cancelRuns(client: LongrunClient, threadId: string): Promise<void> {
  const detail = await client.threads.get(threadId);
  for (const run of detail.runs.filter((candidate) => candidate.finishedAt === null)) {
    await client.runs.cancel(run.id);
  }
}

async function reopen(page: Page, origin: string, threadId: string): Promise<Page> {
  await page.goto(`${origin}/#/threads/${threadId}`);
  await page.locator('[data-testid="thread-view"][data-history-loaded="true"]').waitFor({ timeout: 300_000 });
  return page;
}

function row(label: string, open: OpenFigures, frames: FrameFigures): string[] {
  return [
    label,
    formatMs(open.snapshotMs),
    formatMs(open.viewMs),
    formatMs(open.entriesMs),
    formatMs(open.historyMs),
    formatMs(frames.p95),
    formatMs(frames.max),
    open.heapMb.toFixed(1),
    String(open.domNodes),
  ];
}

function ratio(value: number, baseline: number): string {
  return baseline > 0 ? `×${(value / baseline).toFixed(2)}` : "–";
}
