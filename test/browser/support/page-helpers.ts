import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { REPO_ROOT } from "./dashboard-build.ts";

/** Where the screenshots go (gitignored with the rest of test/artifacts). */
export const SCREENSHOT_DIR = join(REPO_ROOT, "test/artifacts/screenshots");

export const WIDE = { width: 1440, height: 900 } as const;
export const NARROW = { width: 390, height: 844 } as const;

/** Generous waits: the suite shares two cores with everything else. */
export const UI_TIMEOUT = 60_000;

/**
 * Records every value the context gauge shows (`data-tokens`), in order, from inside the page, so a drop
 * between two measurements is seen even when both land between two polls of the test.
 */
const RECORD_GAUGE = `
  window.__gaugeTokens = [];
  new MutationObserver(() => {
    const gauge = document.querySelector('[data-testid="context-gauge"]');
    const value = gauge ? gauge.getAttribute("data-tokens") : null;
    const list = window.__gaugeTokens;
    if (value && list[list.length - 1] !== value) list.push(value);
  }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-tokens"] });
`;

/** A page at the given viewport that records gauge values and collects console errors. */
export async function openPage(browser: Browser, viewport: { width: number; height: number }) {
  const context = await browser.newContext({ viewport });
  await context.addInitScript({
    content: `document.addEventListener("DOMContentLoaded", () => {${RECORD_GAUGE}});`,
  });
  const page = await context.newPage();
  page.setDefaultTimeout(UI_TIMEOUT);
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  return { page, errors, close: () => context.close() };
}

/** Gauge values seen so far (numbers, in order). */
export async function gaugeHistory(page: Page): Promise<number[]> {
  const values = await page.evaluate(
    () => (globalThis as unknown as { __gaugeTokens?: string[] }).__gaugeTokens ?? [],
  );
  return values.map(Number);
}

/** True when some value is lower than the one before it. */
export function hasDrop(values: readonly number[]): boolean {
  return values.some((value, index) => index > 0 && value < (values[index - 1] ?? 0));
}

/** All `data-message-id`s of the transcript, in order. */
export async function transcriptMessageIds(page: Page): Promise<string[]> {
  return page
    .locator('[data-testid="transcript-entry"]')
    .evaluateAll((nodes) => nodes.map((node) => node.getAttribute("data-message-id") ?? ""));
}

/** Saves a full-page screenshot as test/artifacts/screenshots/<name>.png and returns the path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** How far (px) the transcript is scrolled up from its bottom; a following transcript is near 0. */
export async function transcriptDistanceFromBottom(page: Page): Promise<number> {
  return page
    .locator('[data-testid="transcript"]')
    .evaluate((element) => element.scrollHeight - element.scrollTop - element.clientHeight);
}
