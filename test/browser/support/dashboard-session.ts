import { createClient, type LongrunClient } from "@longrun/client";
import type { Browser, Page } from "playwright-core";
import { launchChromium } from "./chromium.ts";
import { ensureDashboardBuilt } from "./dashboard-build.ts";
import { openPage, WIDE } from "./page-helpers.ts";
import { type BrowserServer, startBrowserServer } from "./servers.ts";

/** The parts a browser test file shares: Chromium, an embedded server with the sim model, one wide page. */
export interface DashboardSession {
  browser: Browser;
  server: BrowserServer;
  client: LongrunClient;
  page: Page;
  /** Uncaught errors of the page, as they happen. */
  pageErrors: string[];
  /** Closes the page, the browser and the server (and removes its data dir). */
  close(): Promise<void>;
}

/**
 * Builds the dashboard if needed, starts Chromium and the server, and opens one wide page. With `home`
 * the page goes to the dashboard and waits for its new-thread form; `beforeHome` runs before that
 * (scripts to install into the page).
 */
export async function openDashboardSession(
  options: { simDelayMs?: number; home?: boolean; beforeHome?: (page: Page) => Promise<void> } = {},
): Promise<DashboardSession> {
  await ensureDashboardBuilt();
  const browser = await launchChromium();
  let server: BrowserServer | undefined;
  try {
    server = await startBrowserServer({ simDelayMs: options.simDelayMs ?? 5 });
    const started = server;
    const client = createClient({ baseUrl: started.instance().url, token: started.instance().token });
    const opened = await openPage(browser, WIDE);
    const close = async () => {
      await opened.close();
      await browser.close();
      await started.close();
    };
    if (options.home) {
      await options.beforeHome?.(opened.page);
      await opened.page.goto(started.instance().dashboardUrl);
      await opened.page.locator('[data-testid="create-thread"]').waitFor();
    }
    return { browser, server: started, client, page: opened.page, pageErrors: opened.errors, close };
  } catch (error) {
    // Nothing the file's afterAll could close is left running.
    await browser.close();
    await server?.close();
    throw error;
  }
}
