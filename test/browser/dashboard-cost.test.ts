import type { LongrunClient } from "@longrun/client";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DashboardSession, openDashboardSession } from "./support/dashboard-session.ts";
import { screenshot, UI_TIMEOUT } from "./support/page-helpers.ts";
import type { BrowserServer } from "./support/servers.ts";
import { byTestId, openThread, waitForIdle } from "./support/watch-helpers.ts";

// A thread's cost so far and the plain way of compacting beside it, as GET /v1/threads/:id/cost gives them.

let session: DashboardSession | undefined;
let server: BrowserServer | undefined;
let client: LongrunClient;
let page: Page;
let pageErrors: string[] = [];

beforeAll(async () => {
  session = await openDashboardSession({ simDelayMs: 5, home: true });
  ({ server, client, page, pageErrors } = session);
}, 300_000);

afterAll(async () => {
  await session?.close();
}, 60_000);

const format = (value: number) => new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 }).format(value);

describe("the thread's cost", () => {
  it("shows what the calls cost and what plain compaction would have cost, as the server counts them", async () => {
    const thread = await client.threads.create({
      title: "Cost panel",
      model: "sim",
      simSteps: 30,
      maxInputTokens: 8000,
      task: "Explore the workspace and report.",
    });
    await waitForIdle(client, thread.id);
    const cost = await client.threads.cost(thread.id);
    expect(cost.plain).not.toBeNull();

    await page.goto(`${new URL(server!.instance().url).origin}/#/`);
    await openThread(page, thread.id);
    const billed = page.locator(byTestId("thread-cost-billed"));
    await billed.waitFor({ timeout: UI_TIMEOUT });
    expect(await billed.textContent()).toBe(format(cost.billed.openai));
    const plain = await page.locator(byTestId("thread-cost-plain")).textContent();
    expect(plain).toContain(format(cost.plain!.compared.openai));
    expect(plain).toContain(`${cost.plain!.compactions} compaction`);
    const saved = cost.saved!.openai / cost.plain!.compared.openai;
    expect(await page.locator(byTestId("thread-cost-saved")).textContent()).toBe(
      saved >= 0 ? `${(saved * 100).toFixed(1)} % saved` : `${(-saved * 100).toFixed(1)} % more`,
    );
    // Provider-reported figures may include a prefix other threads cached: the panel says so.
    expect(await page.locator(byTestId("thread-cost-caveat")).count()).toBe(
      cost.source === "estimate" ? 0 : 1,
    );
    await page.locator(`${byTestId("thread-cost")} summary`).click();
    await screenshot(page, "thread-cost");
    expect(pageErrors).toEqual([]);
  }, 240_000);
});
