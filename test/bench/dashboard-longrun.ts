import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { loadConfig, startEmbedded } from "@longrun/cli";
import { createClient, type LongrunClient } from "@longrun/client";
import type { CDPSession, Page } from "playwright-core";
import { launchChromium } from "../browser/support/chromium.ts";
import { ensureDashboardBuilt } from "../browser/support/dashboard-build.ts";
import { formatMs, quantile, renderTable } from "./stats.ts";

// The dashboard on a long thread, in real Chromium against an embedded server: time to open (from a
// fresh page load to the snapshot view, the first transcript entries and the history read), frame times
// while the reader scrolls the transcript during a live run, and the page's memory. Each figure is
// reported beside the same figure for a short thread in the same run (the baseline): the ratios are
// what to compare across machines, the absolute numbers belong to this one.

const RESULTS = fileURLToPath(new URL("./results/dashboard-longrun.json", import.meta.url));
const VIEWPORT = { width: 1440, height: 900 };
const SCROLL_MS = 5000;
/** Pixels per wheel event and how often one is sent: a reader flicking steadily through the log. */
const WHEEL_PX = 160;
const WHEEL_EVERY_MS = 16;
const IDLE_MS = 2000;
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

interface FrameFigures {
  frames: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  over50ms: number;
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
 * Runs in the page (the test tsconfig has no DOM types): records every animation frame's interval until
 * `window.__stopFrames()` is called, which returns them.
 */
const FRAME_RECORDER_SCRIPT = `() => {
  const gaps = [];
  let last = performance.now();
  let running = true;
  const frame = (now) => {
    gaps.push(now - last);
    last = now;
    if (running) requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
  window.__stopFrames = () => {
    running = false;
    return gaps.slice(1);
  };
}`;

/** Runs in the page: where the transcript is scrolled to, to turn the wheel around at either end. */
const SCROLL_END_SCRIPT = `(() => {
  const element = document.querySelector('[data-testid="transcript"]');
  if (element.scrollTop <= 0) return "top";
  if (element.scrollTop + element.clientHeight >= element.scrollHeight - 2) return "bottom";
  return "middle";
})()`;

/** Runs in the page: frame intervals for `duration` ms while nothing is done (the page's idle frame time). */
const IDLE_SCRIPT = `async (duration) => {
  const gaps = [];
  let last = performance.now();
  const end = last + duration;
  await new Promise((resolve) => {
    const frame = (now) => {
      gaps.push(now - last);
      last = now;
      if (now < end) requestAnimationFrame(frame);
      else resolve();
    };
    requestAnimationFrame(frame);
  });
  return gaps.slice(1);
}`;

/**
 * Runs in the page: presses the navigator's button `testId` and returns the ms until the focus is on a
 * transcript entry the predicate accepts (checked every frame; the jump may read older messages first).
 */
const JUMP_SCRIPT = `async ({ testId, minSeq, error }) => {
  const button = document.querySelector('[data-testid="' + testId + '"]');
  if (!button || button.disabled) return -1;
  const started = performance.now();
  const reached = () => {
    const element = document.activeElement;
    if (!element || !element.hasAttribute("data-entry")) return false;
    if (error) return element.querySelector('[data-testid="tool-call"][data-status="error"]') !== null || element.matches(".phase-failed");
    return Number(element.getAttribute("data-seq")) >= minSeq;
  };
  const done = new Promise((resolve) => {
    const check = () => (reached() ? resolve(performance.now() - started) : requestAnimationFrame(check));
    requestAnimationFrame(check);
  });
  button.click();
  return Promise.race([done, new Promise((resolve) => setTimeout(() => resolve(-2), 60000))]);
}`;

/** Time (ms) for the navigator to reach step `step` (typed into "Go to step"), -1 without a navigator. */
async function jumpToStep(page: Page, step: number): Promise<number> {
  await page.locator('[data-testid="jump-step-input"]').fill(String(step));
  return (await page.evaluate(
    `(${JUMP_SCRIPT})(${JSON.stringify({ testId: "jump-step", minSeq: step })})`,
  )) as number;
}

/** Time (ms) for "First error" to focus the entry with the first error; -1 when the run has none. */
async function jumpToFirstError(page: Page): Promise<number> {
  return (await page.evaluate(
    `(${JUMP_SCRIPT})(${JSON.stringify({ testId: "jump-first-error", minSeq: 0, error: true })})`,
  )) as number;
}

/** Frame intervals while the page does nothing, for IDLE_MS. */
async function idleFrames(page: Page): Promise<FrameFigures> {
  return frameFigures((await page.evaluate(`(${IDLE_SCRIPT})(${IDLE_MS})`)) as number[]);
}

/**
 * Scrolls the transcript as a reader does, with the mouse wheel over it (input events through the
 * browser, so the page sees a reader scrolling and stops following new output), up from where it is and
 * back down at the top, for SCROLL_MS, and returns the page's frame intervals meanwhile.
 */
async function scrollFrames(page: Page): Promise<FrameFigures> {
  const box = await page.locator('[data-testid="transcript"]').boundingBox();
  if (!box) throw new Error("the transcript is not on screen");
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.evaluate(`(${FRAME_RECORDER_SCRIPT})()`);
  const end = performance.now() + SCROLL_MS;
  let direction = -1;
  for (let notch = 0; performance.now() < end; notch++) {
    const started = performance.now();
    // One wheel event of WHEEL_PX about every frame.
    await page.mouse.wheel(0, direction * WHEEL_PX);
    if (notch % 4 === 3) {
      const at = await page.evaluate(SCROLL_END_SCRIPT);
      if (at === "top") direction = 1;
      else if (at === "bottom") direction = -1;
    }
    const left = WHEEL_EVERY_MS - (performance.now() - started);
    if (left > 0) await new Promise((resolve) => setTimeout(resolve, left));
  }
  return frameFigures((await page.evaluate("window.__stopFrames()")) as number[]);
}

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

function frameFigures(intervals: number[]): FrameFigures {
  return {
    frames: intervals.length,
    p50: quantile(intervals, 0.5),
    p95: quantile(intervals, 0.95),
    p99: quantile(intervals, 0.99),
    max: Math.max(...intervals),
    over50ms: intervals.filter((gap) => gap > 50).length,
  };
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
    const baseStreamed = await whileStreaming(client, base.id, () => scrollFrames(page));
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
    const profiling =
      process.env.LONGRUN_BENCH_DASHBOARD_PROFILE === "trace"
        ? "trace"
        : process.env.LONGRUN_BENCH_DASHBOARD_PROFILE
          ? "cpu"
          : null;
    const profiler = profiling === "cpu" ? await startProfile(page) : null;
    if (profiling === "trace") await browser.startTracing(page, { categories: ["devtools.timeline"] });
    const streamed = await whileStreaming(client, long.id, () => scrollFrames(page));
    if (profiler) await printProfile(profiler);
    if (profiling === "trace") printTrace(await browser.stopTracing());
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

/** With LONGRUN_BENCH_DASHBOARD_PROFILE set: a CPU profile of the page over the window measured during the run. */
async function startProfile(page: Page): Promise<CDPSession> {
  const session = await page.context().newCDPSession(page);
  await session.send("Profiler.enable");
  await session.send("Profiler.setSamplingInterval", { interval: 200 });
  await session.send("Profiler.start");
  return session;
}

/** Prints the functions the page spent most of its own time in, with the page's long tasks. */
async function printProfile(session: CDPSession): Promise<void> {
  const { profile } = await session.send("Profiler.stop");
  await session.detach();
  const selfMs = new Map<string, number>();
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const deltas = profile.timeDeltas ?? [];
  (profile.samples ?? []).forEach((id, index) => {
    const frame = byId.get(id)?.callFrame;
    if (!frame) return;
    const file = frame.url.split("/").at(-1) ?? "";
    const name = `${frame.functionName || "(anonymous)"} ${file}:${frame.lineNumber + 1}:${frame.columnNumber + 1}`;
    selfMs.set(name, (selfMs.get(name) ?? 0) + (deltas[index] ?? 0) / 1000);
  });
  const top = [...selfMs.entries()].sort((a, b) => b[1] - a[1]).slice(0, 25);
  console.log("  page CPU during the run (self time):");
  for (const [name, ms] of top) console.log(`    ${ms.toFixed(1).padStart(8)} ms  ${name}`);
}

/** The page's main-thread time by trace event (only events not nested in another), over the window. */
function printTrace(buffer: Buffer): void {
  const { traceEvents } = JSON.parse(buffer.toString()) as {
    traceEvents: {
      name: string;
      ph: string;
      dur?: number;
      ts: number;
      tid: number;
      args?: { name?: string };
    }[];
  };
  const main = traceEvents.find(
    (event) => event.name === "thread_name" && event.args?.name === "CrRendererMain",
  )?.tid;
  const complete = traceEvents
    .filter((event) => event.tid === main && event.ph === "X" && event.dur !== undefined)
    .sort((a, b) => a.ts - b.ts);
  const byName = new Map<string, number>();
  let coveredUntil = 0;
  for (const event of complete) {
    if (event.ts < coveredUntil) continue;
    coveredUntil = event.ts + (event.dur ?? 0);
    byName.set(event.name, (byName.get(event.name) ?? 0) + (event.dur ?? 0) / 1000);
  }
  console.log("  page main thread during the run (top-level trace events):");
  for (const [name, ms] of [...byName.entries()].sort((a, b) => b[1] - a[1]).slice(0, 15)) {
    console.log(`    ${ms.toFixed(1).padStart(8)} ms  ${name}`);
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
