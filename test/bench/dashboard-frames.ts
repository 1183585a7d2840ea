import { performance } from "node:perf_hooks";
import type { Page } from "playwright-core";
import { quantile } from "./stats.ts";

// Frame times and navigator jumps measured inside the dashboard's page, for the dashboard-longrun bench:
// scripts that run in the page (the test tsconfig has no DOM types) and the figures made of them.

export const SCROLL_MS = 5000;
/** Pixels per wheel event and how often one is sent: a reader flicking steadily through the log. */
export const WHEEL_PX = 160;
export const WHEEL_EVERY_MS = 16;
const IDLE_MS = 2000;

export interface FrameFigures {
  frames: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  over50ms: number;
}

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
export async function jumpToStep(page: Page, step: number): Promise<number> {
  await page.locator('[data-testid="jump-step-input"]').fill(String(step));
  return (await page.evaluate(
    `(${JUMP_SCRIPT})(${JSON.stringify({ testId: "jump-step", minSeq: step })})`,
  )) as number;
}

/** Time (ms) for "First error" to focus the entry with the first error; -1 when the run has none. */
export async function jumpToFirstError(page: Page): Promise<number> {
  return (await page.evaluate(
    `(${JUMP_SCRIPT})(${JSON.stringify({ testId: "jump-first-error", minSeq: 0, error: true })})`,
  )) as number;
}

/** Frame intervals while the page does nothing, for IDLE_MS. */
export async function idleFrames(page: Page): Promise<FrameFigures> {
  return frameFigures((await page.evaluate(`(${IDLE_SCRIPT})(${IDLE_MS})`)) as number[]);
}

/**
 * Scrolls the transcript as a reader does, with the mouse wheel over it (input events through the
 * browser, so the page sees a reader scrolling and stops following new output), up from where it is and
 * back down at the top, for SCROLL_MS, and returns the page's frame intervals meanwhile.
 */
export async function scrollFrames(page: Page): Promise<FrameFigures> {
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

export function frameFigures(intervals: number[]): FrameFigures {
  return {
    frames: intervals.length,
    p50: quantile(intervals, 0.5),
    p95: quantile(intervals, 0.95),
    p99: quantile(intervals, 0.99),
    max: Math.max(...intervals),
    over50ms: intervals.filter((gap) => gap > 50).length,
  };
}
