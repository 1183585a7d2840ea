import type { Browser, CDPSession, Page } from "playwright-core";

// Where the dashboard's main thread went during the dashboard-longrun bench's run
// (LONGRUN_BENCH_DASHBOARD_PROFILE=cpu|trace): a CPU profile's self times, a trace's top-level events.

/** A CPU profile of the page from now until printProfile. */
async function startProfile(page: Page): Promise<CDPSession> {
  const session = await page.context().newCDPSession(page);
  await session.send("Profiler.enable");
  await session.send("Profiler.setSamplingInterval", { interval: 200 });
  await session.send("Profiler.start");
  return session;
}

/** Prints the functions the page spent most of its own time in, with the page's long tasks. */
async function printProfile(session: CDPSession, window: string): Promise<void> {
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
  console.log(`  page CPU during ${window} (self time):`);
  for (const [name, ms] of top) console.log(`    ${ms.toFixed(1).padStart(8)} ms  ${name}`);
}

/** The page's main-thread time by trace event (only events not nested in another), over the window. */
function printTrace(buffer: Buffer, window: string): void {
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
  console.log(`  page main thread during ${window} (top-level trace events):`);
  for (const [name, ms] of [...byName.entries()].sort((a, b) => b[1] - a[1]).slice(0, 15)) {
    console.log(`    ${ms.toFixed(1).padStart(8)} ms  ${name}`);
  }
}

/**
 * Runs `measure` (a window the bench times); with LONGRUN_BENCH_DASHBOARD_PROFILE set, the page's main
 * thread over it is profiled (`trace`: a trace's top-level events; any other value: a CPU profile) and
 * printed, named by `window`.
 */
export async function profiled<T>(
  browser: Browser,
  page: Page,
  window: string,
  measure: () => Promise<T>,
): Promise<T> {
  const mode = process.env.LONGRUN_BENCH_DASHBOARD_PROFILE;
  if (!mode) return measure();
  if (mode === "trace") {
    await browser.startTracing(page, { categories: ["devtools.timeline"] });
    const result = await measure();
    printTrace(await browser.stopTracing(), window);
    return result;
  }
  const profiler = await startProfile(page);
  const result = await measure();
  await printProfile(profiler, window);
  return result;
}
