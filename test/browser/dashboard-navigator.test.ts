import type { LongrunClient } from "@longrun/client";
import { contentText } from "@longrun/protocol";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type DashboardSession, openDashboardSession } from "./support/dashboard-session.ts";
import { screenshot, UI_TIMEOUT } from "./support/page-helpers.ts";
import type { BrowserServer } from "./support/servers.ts";
import { byTestId, openThread, waitForIdle } from "./support/watch-helpers.ts";

// A long run you can navigate: the navigator's jumps, folded compaction rows, one tab stop for the
// transcript with arrow keys reaching every tool call; and acting from the transcript: an approval made
// into a scoped rule, fork and rewind from a message or a compaction. The tests share one thread (the
// sim's approval script: `ls -la` at step 1, `git status --short` at step 11, which fails outside a git
// repository) and run in order.

const TEST_TIMEOUT = 240_000;

let session: DashboardSession | undefined;
let server: BrowserServer | undefined;
let client: LongrunClient;
let page: Page;
let pageErrors: string[] = [];
/** The approval thread of the first test, finished, reused by the next ones. */
let source: { threadId: string; agentId: string } | undefined;

beforeAll(async () => {
  session = await openDashboardSession({ simDelayMs: 5, home: true });
  ({ server, client, page, pageErrors } = session);
}, 300_000);

afterAll(async () => {
  await session?.close();
}, 60_000);

async function showThread(threadId: string): Promise<void> {
  await page.goto(`${new URL(server!.instance().url).origin}/#/`);
  await openThread(page, threadId);
}

function sourceThread(): { threadId: string; agentId: string } {
  if (!source) throw new Error("the first test did not finish its thread");
  return source;
}

/** The thread the page shows once the address moved away from `fromThreadId`. */
async function threadOpenedFrom(fromThreadId: string): Promise<string> {
  // Expressions run in the page (the test tsconfig has no DOM types).
  await page.waitForFunction(
    `/#\\/threads\\/[^/]+/.test(location.hash) && !location.hash.includes(${JSON.stringify(fromThreadId)})`,
    undefined,
    { timeout: UI_TIMEOUT },
  );
  return decodeURIComponent(new URL(page.url()).hash.replace("#/threads/", ""));
}

describe("navigating a long run and acting from its transcript", () => {
  it(
    "turns an approval into a rule for this thread, with the pattern the person gave",
    async () => {
      const thread = await client.threads.create({
        title: "Navigator source",
        model: "sim",
        simScript: "approval",
        simSteps: 14,
        maxInputTokens: 8000,
        task: "List the workspace files with a shell command, then report.",
      });
      await showThread(thread.id);
      const request = page.locator(byTestId("approval-request")).first();
      await request.waitFor({ timeout: UI_TIMEOUT });
      const choice = request.locator(byTestId("rule-choice"));
      const pattern = choice.locator(byTestId("rule-pattern"));
      // The pattern starts as the call's own subject.
      expect(await pattern.inputValue()).toBe("ls -la");
      await pattern.fill("ls *");
      await screenshot(page, "nav-rule-wide");
      await choice.locator(byTestId("rule-thread")).click();
      await page
        .locator(byTestId("approval-request"))
        .first()
        .waitFor({ state: "detached", timeout: UI_TIMEOUT });
      const rules = await client.approvals.rules({ threadId: thread.id });
      expect(rules).toHaveLength(1);
      expect(rules[0]).toMatchObject({
        scope: "thread",
        threadId: thread.id,
        toolName: "run_command",
        pattern: "ls *",
      });

      // `git status --short` at step 11 is not `ls *`: it is asked about, approved here over the API.
      const pending = await vi.waitFor(
        async () => {
          const found = (await client.approvals.pending()).find((item) => item.threadId === thread.id);
          expect(found).toBeDefined();
          return found!;
        },
        { timeout: UI_TIMEOUT, interval: 200 },
      );
      expect(JSON.parse(pending.arguments).command).toBe("git status --short");
      await client.approvals.resolve(pending.agentId, pending.callId, { decision: "approve" });
      await waitForIdle(client, thread.id);
      source = { threadId: thread.id, agentId: pending.agentId };
      expect(pageErrors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    "jumps from the navigator to the first error",
    async () => {
      const { threadId } = sourceThread();
      await showThread(threadId);
      const navigator = page.locator(byTestId("run-navigator"));
      const button = navigator.locator(byTestId("jump-first-error"));
      await expect.poll(() => button.textContent(), { timeout: UI_TIMEOUT }).toMatch(/First error \(1\)/);
      expect(
        Number(await navigator.locator(byTestId("navigator-bins")).getAttribute("data-bins")),
      ).toBeGreaterThan(0);
      await button.click();
      // The focus lands on the entry holding the failed call.
      await page.waitForFunction(
        `document.activeElement?.hasAttribute("data-entry") === true &&
          document.activeElement.querySelector('[data-testid="tool-call"][data-status="error"]') !== null`,
        undefined,
        { timeout: UI_TIMEOUT },
      );
      await screenshot(page, "nav-first-error-wide");
      expect(pageErrors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    "keeps the transcript one tab stop: arrow keys reach the tool calls, Tab leaves in a few presses",
    async () => {
      const { threadId } = sourceThread();
      await showThread(threadId);
      const transcript = page.locator(byTestId("transcript"));
      expect(await transcript.locator(byTestId("tool-call")).count()).toBeGreaterThan(5);
      await transcript.focus();
      await page.keyboard.press("Home");
      let onToolCall = false;
      for (let press = 0; press < 10 && !onToolCall; press++) {
        await page.keyboard.press("ArrowDown");
        onToolCall = (await page.evaluate(
          `document.activeElement?.matches('[data-testid="tool-call"] > summary') === true`,
        )) as boolean;
      }
      expect(onToolCall).toBe(true);
      // Only the controls of the entry the reader is on are tab stops.
      const tabbable = (await page.evaluate(
        `[...document.querySelector('[data-testid="transcript"]').querySelectorAll("button, summary, a[href], input, select, textarea")]
          .filter((control) => control.tabIndex >= 0 && !control.disabled).length`,
      )) as number;
      expect(tabbable).toBeLessThanOrEqual(6);
      let left = false;
      for (let press = 0; press < 10 && !left; press++) {
        await page.keyboard.press("Tab");
        left = (await page.evaluate(
          `!document.querySelector('[data-testid="transcript"]').contains(document.activeElement)`,
        )) as boolean;
      }
      expect(left).toBe(true);
      expect(pageErrors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    "draws a tool call's arguments and result when it is opened, and the timeline's bars without an element each",
    async () => {
      const { threadId, agentId } = sourceThread();
      await showThread(threadId);
      const transcript = page.locator(byTestId("transcript"));
      const { messages } = await client.agents.messages(agentId, { limit: 5000 });
      const result = messages.find((message) => message.role === "tool" && message.toolStatus === "ok");
      const callId = result?.toolCallId ?? "";
      const made = messages.find((message) => message.toolCalls?.some((call) => call.id === callId));
      const call = transcript.locator(`${byTestId("tool-call")}[data-call-id="${callId}"]`);
      await call.waitFor({ timeout: UI_TIMEOUT });
      // Closed, the call is its one-line summary: name, arguments in short, status.
      expect(await call.locator("summary").textContent()).toContain(
        made?.toolCalls?.find((item) => item.id === callId)?.function.name ?? "?",
      );
      expect(await call.locator(".tool-body").count()).toBe(0);
      // Opened from the keyboard, it shows the arguments and the result the log holds.
      await call.locator("summary").focus();
      await page.keyboard.press("Enter");
      const output = call.locator(byTestId("tool-output"));
      await output.waitFor({ timeout: UI_TIMEOUT });
      const resultText = contentText(result?.content ?? null);
      // Cut at the output limit, like before it was drawn on demand.
      expect(resultText.slice(0, 2000)).toBe(await output.textContent());
      expect(await call.locator("pre.code").first().textContent()).toContain(
        Object.keys(
          JSON.parse(made?.toolCalls?.find((item) => item.id === callId)?.function.arguments ?? "{}"),
        )[0],
      );
      await page.keyboard.press("Enter");
      await expect.poll(() => call.locator(".tool-body").count()).toBe(0);
      // Each bin of the timeline draws its model turns as a bar, from the bin's own style.
      const bars = (await page.evaluate(
        `[...document.querySelectorAll('[data-testid="navigator-bin"]')].map((bin) => [
          bin.children.length - bin.querySelectorAll(".bin-error, .bin-approval").length,
          parseFloat(getComputedStyle(bin, "::before").height),
        ])`,
      )) as [number, number][];
      expect(bars.length).toBeGreaterThan(0);
      expect(bars.every(([children]) => children === 0)).toBe(true);
      expect(bars.some(([, height]) => height > 0)).toBe(true);
      expect(pageErrors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    "forks from a message: the new thread opens and starts with the messages it inherited",
    async () => {
      const { threadId, agentId } = sourceThread();
      await showThread(threadId);
      const entry = page.locator(`${byTestId("transcript-entry")}[data-role="assistant"]`).nth(2);
      const messageId = (await entry.getAttribute("data-message-id")) ?? "";
      const seq = Number(await entry.getAttribute("data-seq"));
      await entry.locator(byTestId("fork-here")).click();
      const forkId = await threadOpenedFrom(threadId);
      await page.locator(`${byTestId("thread-view")}[data-thread-id="${forkId}"]`).waitFor();
      const origin = page.locator(byTestId("fork-origin"));
      await origin.waitFor({ timeout: UI_TIMEOUT });
      expect(await origin.getAttribute("data-source-thread-id")).toBe(threadId);
      const carried = (await client.agents.messages(agentId, { limit: 5000 })).messages.filter(
        (message) => message.seq <= seq,
      );
      expect(Number(await origin.getAttribute("data-inherited"))).toBe(carried.length);
      expect(await origin.locator(byTestId("inherited-message")).last().getAttribute("data-message-id")).toBe(
        messageId,
      );
      expect(await origin.textContent()).toMatch(new RegExp(`after message #${seq}`));
      expect((await client.threads.get(forkId)).forkedFromThreadId).toBe(threadId);
      await screenshot(page, "nav-fork-wide");
      // The link goes back to the source.
      await origin.locator(byTestId("fork-source-link")).click();
      await page.locator(`${byTestId("thread-view")}[data-thread-id="${threadId}"]`).waitFor();
      expect(pageErrors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    "folds the compaction notices in a row at the top of a long run into one, and rewinds from one of them",
    async () => {
      // 300 turns at 8k: about 650 messages and 50 compactions. The page reads the last 400 messages
      // first, so the notices of the compactions before them stand in a row above the first one read.
      const thread = await client.threads.create({
        title: "Long run to fold",
        model: "sim",
        simSteps: 300,
        maxInputTokens: 8000,
        task: "Survey the project and report.",
      });
      await waitForIdle(client, thread.id);
      const root = thread.agents.find((agent) => agent.parentAgentId === null);
      if (!root) throw new Error("no root agent");
      const compactions = await client.agents.compactions(root.id);
      expect(compactions.length).toBeGreaterThan(20);

      await showThread(thread.id);
      const transcript = page.locator(byTestId("transcript"));
      await transcript.focus();
      await page.keyboard.press("Home");
      const row = transcript.locator(byTestId("compaction-run"));
      await row.waitFor({ timeout: UI_TIMEOUT });
      const folded = Number(await row.getAttribute("data-count"));
      expect(folded).toBeGreaterThanOrEqual(2);
      expect(folded).toBeLessThan(compactions.length);
      expect(await row.textContent()).toContain(`${folded} compactions in a row`);
      /** The keys of the entries drawn at the top of the transcript, in order. */
      const drawnKeys = () =>
        transcript
          .locator("[data-vkey]")
          .evaluateAll((nodes) => nodes.map((node) => node.getAttribute("data-vkey") ?? ""));
      // Folded: one row, then the first message read; none of its notices is drawn on its own.
      const [first, second] = await drawnKeys();
      expect(first).toMatch(/^compactions:/);
      expect(second).toMatch(/^message:/);
      await screenshot(page, "nav-folded-wide");

      // "Show each": the row gives way to its notices, the oldest compactions in the server's order.
      await row.locator(byTestId("compaction-run-expand")).click();
      await row.waitFor({ state: "detached" });
      const notices = transcript.locator(byTestId("compaction-notice"));
      await notices.first().waitFor();
      await transcript.focus();
      await page.keyboard.press("Home");
      await page.waitForFunction(
        `document.querySelector('[data-testid="transcript"] [data-vkey]')?.getAttribute("data-vkey")?.startsWith("compaction:") === true`,
      );
      // The notices drawn before the first message (the virtual list draws those near the view).
      const keys = await drawnKeys();
      const leading = keys.slice(
        0,
        keys.findIndex((key) => key.startsWith("message:")),
      );
      expect(leading.length).toBeGreaterThan(1);
      expect(leading.every((key) => key.startsWith("compaction:"))).toBe(true);
      // Those drawn at the top, in order, are the oldest compactions the server recorded (a notice of a
      // compaction that found nothing to compact, "skipped", has no record of its own).
      const completed = (
        await notices.evaluateAll((nodes) =>
          nodes.map((node) => [node.getAttribute("data-compaction-id"), node.getAttribute("data-phase")]),
        )
      )
        .slice(0, leading.length)
        .flatMap(([id, phase]) => (phase === "completed" ? [id] : []));
      expect(completed.length).toBeGreaterThan(1);
      expect(completed).toEqual(compactions.slice(0, completed.length).map((compaction) => compaction.id));

      // Rewind here, from the oldest of them: a new thread continues from that compaction (its summary
      // in force), and this thread now sends its next messages there.
      const oldest = transcript.locator(
        `${byTestId("compaction-notice")}[data-compaction-id="${completed[0]}"]`,
      );
      const compactionId = (await oldest.getAttribute("data-compaction-id")) ?? "";
      await oldest.locator(byTestId("rewind-here")).click();
      const forkId = await threadOpenedFrom(thread.id);
      await page.locator(`${byTestId("thread-view")}[data-thread-id="${forkId}"]`).waitFor();
      const origin = page.locator(byTestId("fork-origin"));
      await origin.waitFor({ timeout: UI_TIMEOUT });
      expect(await origin.getAttribute("data-source-thread-id")).toBe(thread.id);
      expect(await origin.textContent()).toMatch(/at a compaction \(its summary is in force here\)/);
      const fork = await client.threads.get(forkId);
      expect(fork.forkedFromThreadId).toBe(thread.id);
      expect(fork.agents.find((agent) => agent.parentAgentId === null)?.forkCompactionId).toBe(compactionId);
      expect((await client.threads.get(thread.id)).rewoundToThreadId).toBe(forkId);
      await screenshot(page, "nav-rewound-fork-wide");
      // The source says where its messages go now.
      await origin.locator(byTestId("fork-source-link")).click();
      const rewound = page.locator(byTestId("rewound-to"));
      await rewound.waitFor({ timeout: UI_TIMEOUT });
      expect(await rewound.locator(byTestId("rewound-to-link")).getAttribute("href")).toBe(
        `#/threads/${encodeURIComponent(forkId)}`,
      );
      expect(pageErrors).toEqual([]);
    },
    TEST_TIMEOUT,
  );
});
