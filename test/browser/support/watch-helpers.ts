import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import type { LongrunClient } from "@longrun/client";
import type { Page } from "playwright-core";
import { expect, vi } from "vitest";

export const byTestId = (id: string) => `[data-testid="${id}"]`;

/**
 * Records, from inside the page and on every DOM change, what a person could have seen at any moment:
 * the thread's status, a Cancel button, a running tool call, a call id drawn twice, an empty context bar
 * beside an open thread. Sampling from the test would miss states that last a frame.
 */
const RECORDERS = `
  const fresh = () => ({ statuses: [], cancel: 0, runningTools: 0, dupes: [], emptyGauge: 0 });
  window.__seen = fresh();
  window.__resetSeen = () => { window.__seen = fresh(); };
  new MutationObserver(() => {
    const seen = window.__seen;
    const view = document.querySelector('[data-testid="thread-view"]');
    if (view) {
      const status = view.getAttribute("data-status");
      if (seen.statuses[seen.statuses.length - 1] !== status) seen.statuses.push(status);
    }
    if (document.querySelector('[data-testid="cancel-run-button"]')) seen.cancel++;
    if (document.querySelector('[data-testid="tool-call"][data-status="running"]')) seen.runningTools++;
    const ids = [...document.querySelectorAll('[data-testid="tool-call"]')].map((node) => node.getAttribute("data-call-id"));
    const twice = ids.find((id, index) => ids.indexOf(id) !== index);
    if (twice) seen.dupes.push(twice);
    const gauge = document.querySelector('[data-testid="context-gauge"]');
    if (view && gauge && !gauge.getAttribute("data-tokens")) seen.emptyGauge++;
  }).observe(document, { subtree: true, childList: true, attributes: true });
`;

export interface Seen {
  statuses: string[];
  cancel: number;
  runningTools: number;
  dupes: string[];
  emptyGauge: number;
}

/** Installs the recorders for every later navigation of the page's context. */
export async function installRecorders(page: Page): Promise<void> {
  await page.context().addInitScript({
    content: `document.addEventListener("DOMContentLoaded", () => {${RECORDERS}});`,
  });
}

export async function resetSeen(page: Page): Promise<void> {
  await page.evaluate(() => (globalThis as unknown as { __resetSeen: () => void }).__resetSeen());
}

export async function seen(page: Page): Promise<Seen> {
  return page.evaluate(() => (globalThis as unknown as { __seen: Seen }).__seen);
}

/** Waits until a thread has no active run (read over the API, not the page). */
export async function waitForIdle(client: LongrunClient, threadId: string, timeout = 240_000) {
  await vi.waitFor(
    async () => {
      const detail = await client.threads.get(threadId);
      expect(detail.runs.length).toBeGreaterThan(0);
      expect(detail.runs.every((run) => run.finishedAt !== null)).toBe(true);
    },
    { timeout, interval: 200 },
  );
}

/** Opens a thread by clicking it in the list (the way a person re-opens one) and waits for its history. */
export async function openThread(page: Page, threadId: string): Promise<void> {
  await page.locator(`${byTestId("thread-item")}[data-thread-id="${threadId}"]`).click();
  await page
    .locator(`${byTestId("thread-view")}[data-thread-id="${threadId}"][data-history-loaded="true"]`)
    .waitFor();
}

/** Serious or critical axe-core violations on the page as it is now (ids and where). */
export async function seriousAxeViolations(page: Page): Promise<string[]> {
  const require = createRequire(import.meta.url);
  const source = await readFile(require.resolve("axe-core/axe.min.js"), "utf8");
  await page.evaluate(source);
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: {
          run: () => Promise<{
            violations: Array<{ id: string; impact: string | null; nodes: Array<{ target: unknown[] }> }>;
          }>;
        };
      }
    ).axe;
    const result = await axe.run();
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      targets: violation.nodes.slice(0, 3).map((node) => JSON.stringify(node.target)),
    }));
  });
  return violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => `${violation.id} (${violation.impact}) at ${violation.targets.join(", ")}`);
}
