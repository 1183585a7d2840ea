import type { LongrunClient } from "@longrun/client";
import type { CompactionList, StoredMessage } from "@longrun/protocol";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { readFacts } from "../e2e/support/distributed-events.ts";
import { type DashboardSession, openDashboardSession } from "./support/dashboard-session.ts";
import { NARROW, screenshot, UI_TIMEOUT, WIDE } from "./support/page-helpers.ts";
import type { BrowserServer } from "./support/servers.ts";
import { byTestId, openThread, seriousAxeViolations, waitForIdle } from "./support/watch-helpers.ts";

// What one compaction traded (issue 38 item 2): each message it removed beside the ledger entry that now
// stands for it, whether the next request still holds what matters, and what it cost — on a real thread.

const TEST_TIMEOUT = 240_000;
const format = (value: number) => new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 }).format(value);

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

/** Shows the notice of a compaction (drawn where it happened): the navigator's jump to the message after it. */
async function revealNotice(compactionId: string, nextSeq: number) {
  await page.locator(byTestId("jump-step-input")).fill(String(nextSeq));
  await page.locator(byTestId("jump-step")).click();
  const notice = page.locator(`${byTestId("compaction-notice")}[data-compaction-id="${compactionId}"]`);
  await notice.waitFor({ timeout: UI_TIMEOUT });
  return notice;
}

describe("a compaction's diff", () => {
  it(
    "puts each removed message beside its ledger entry, checks the next request and shows the cost",
    async () => {
      const thread = await client.threads.create({
        title: "Compaction diff",
        model: "sim",
        simSteps: 40,
        maxInputTokens: 8000,
        task: "Survey the inventory service and report its modules, tests and docs.",
      });
      await waitForIdle(client, thread.id);
      const detail = await client.threads.get(thread.id);
      const agentId = detail.agents.find((agent) => agent.parentAgentId === null)?.id;
      if (!agentId) throw new Error("no root agent");
      const messages = await readFacts(client, agentId);
      const writes = messages.filter((message) =>
        (message.toolCalls ?? []).some((call) => call.function.name === "write_file"),
      );
      // The first compaction whose removed range holds a write_file call (the sim writes its notes at step 5).
      const compactions = await client.agents.compactions(agentId);
      let chosen: { compaction: CompactionList["compactions"][number]; write: StoredMessage } | null = null;
      for (const compaction of compactions) {
        const range = compaction.coverage;
        const write = writes.find(
          (message) => range && message.seq >= range.fromSeq && message.seq <= range.toSeq,
        );
        if (range && write) {
          chosen = { compaction, write };
          break;
        }
      }
      if (!chosen?.compaction.coverage) throw new Error("no compaction removed a write_file call");
      const { compaction, write } = chosen;
      const coverage = chosen.compaction.coverage;
      const kept = new Set(coverage.kept.map((item) => item.seq));
      const removed = messages.filter(
        (message) =>
          message.seq >= coverage.fromSeq && message.seq <= coverage.toSeq && !kept.has(message.seq),
      );
      const events = await client.threads.eventsPage(thread.id, {
        since: 0,
        limit: 1000,
        types: "compaction.completed",
      });
      const completed = events.events.find(
        (event) => event.type === "compaction.completed" && event.data.compactionId === compaction.id,
      );
      if (completed?.type !== "compaction.completed") throw new Error("no compaction.completed event");
      const cost = await client.threads.cost(thread.id);

      await page.goto(`${new URL(server!.instance().url).origin}/#/`);
      await openThread(page, thread.id);
      const next = messages.find((message) => message.createdAt > completed.at) ?? messages.at(-1);
      const notice = await revealNotice(compaction.id, next?.seq ?? coverage.toSeq + 1);
      const link = notice.locator(byTestId("compaction-diff-link"));
      await link.click();
      const dialog = page.locator(byTestId("compaction-diff"));
      await dialog.locator(byTestId("diff-line")).first().waitFor({ timeout: UI_TIMEOUT });

      // One line per removed message, in order, never the system prompt or the task the request still sends.
      const seqs = await dialog
        .locator(byTestId("diff-line"))
        .evaluateAll((nodes) => nodes.map((node) => Number(node.getAttribute("data-seq"))));
      expect(seqs).toEqual(removed.map((message) => message.seq));

      // The write_file call beside the "Files changed" entry of its file.
      const writeLine = dialog.locator(`${byTestId("diff-line")}[data-seq="${write.seq}"]`);
      expect(await writeLine.getAttribute("data-carried")).toBe("true");
      expect(await writeLine.textContent()).toContain("write_file(");
      const changed = writeLine.locator(`${byTestId("diff-entry")}[data-section="Files changed"]`);
      const writtenPath = JSON.parse(
        write.toolCalls?.find((call) => call.function.name === "write_file")?.function.arguments ?? "{}",
      ).path as string;
      expect(await changed.textContent()).toContain(writtenPath);

      // Some removed message has no entry standing for it, and says so.
      const notCarried = dialog.locator(`${byTestId("diff-line")}[data-carried="false"]`);
      expect(await notCarried.count()).toBeGreaterThan(0);
      expect(await notCarried.first().locator(byTestId("diff-not-carried")).textContent()).toBe(
        "not carried",
      );

      // The checks of the next request: the file written is there.
      const checks = dialog.locator(byTestId("diff-check"));
      expect(
        await checks.evaluateAll((nodes) => nodes.map((node) => node.getAttribute("data-check"))),
      ).toEqual(["files", "error", "todos"]);
      const files = dialog.locator(`${byTestId("diff-check")}[data-check="files"]`);
      expect(await files.getAttribute("data-ok")).toBe("pass");
      expect(await files.textContent()).toContain(writtenPath);
      for (const check of await checks.all()) {
        expect(["pass", "fail", "none"]).toContain(await check.getAttribute("data-ok"));
      }

      // The cost figures its compaction.completed carries, and the thread's plain-strategy figure, labelled.
      const size = await dialog.locator(byTestId("diff-cost-size")).textContent();
      expect(size).toContain(format(compaction.tokensBefore - compaction.tokensAfter));
      const summary = (await dialog.locator(byTestId("diff-cost-summary")).textContent()) ?? "";
      const summaryCost = completed.data.summaryCost;
      if (summaryCost) expect(summary).toContain(format(summaryCost.billed.openai));
      else expect(summary).toMatch(/prepared in the background|not recorded/);
      const plain = (await dialog.locator(byTestId("diff-cost-plain")).textContent()) ?? "";
      if (cost.plain) {
        expect(plain).toContain("for the whole thread");
        expect(plain).toContain(format(cost.plain.compared.openai));
      }

      expect(await seriousAxeViolations(page)).toEqual([]);
      await screenshot(page, "diff-wide");

      // Escape closes it and gives focus back to the link that opened it.
      await page.keyboard.press("Escape");
      await dialog.waitFor({ state: "detached" });
      expect(await link.evaluate((element) => element === element.ownerDocument.activeElement)).toBe(true);

      // On a phone the same diff, one column, keyboard-opened.
      await page.setViewportSize(NARROW);
      await link.focus();
      await page.keyboard.press("Enter");
      await dialog.locator(byTestId("diff-line")).first().waitFor({ timeout: UI_TIMEOUT });
      const width = await dialog.evaluate((element) => element.getBoundingClientRect().width);
      expect(width).toBeLessThanOrEqual(NARROW.width);
      expect(await dialog.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await screenshot(page, "diff-narrow");
      await dialog.locator(byTestId("diff-checks-against")).scrollIntoViewIfNeeded();
      await screenshot(page, "diff-narrow-checks");
      await dialog.locator(byTestId("compaction-diff-close")).click();
      await page.setViewportSize(WIDE);
      expect(pageErrors).toEqual([]);
    },
    TEST_TIMEOUT,
  );

  it(
    "puts a removed failing command beside the error the ledger keeps of it",
    async () => {
      // The approval script runs `git status --short` at step 11, which fails outside a git repository.
      const thread = await client.threads.create({
        title: "Compaction diff, an error",
        model: "sim",
        simScript: "approval",
        simSteps: 30,
        maxInputTokens: 8000,
        task: "List the workspace files with a shell command, then report.",
      });
      await vi.waitFor(
        async () => {
          for (const pending of (await client.approvals.pending()).filter(
            (item) => item.threadId === thread.id,
          ))
            await client.approvals.resolve(pending.agentId, pending.callId, { decision: "approve" });
          const detail = await client.threads.get(thread.id);
          expect(detail.runs.every((run) => run.finishedAt !== null)).toBe(true);
        },
        { timeout: 200_000, interval: 300 },
      );
      const detail = await client.threads.get(thread.id);
      const agentId = detail.agents.find((agent) => agent.parentAgentId === null)?.id;
      if (!agentId) throw new Error("no root agent");
      const messages = await readFacts(client, agentId);
      const failed = messages.find((message) => message.role === "tool" && message.toolStatus === "error");
      const compaction = (await client.agents.compactions(agentId)).find(
        ({ coverage }) =>
          failed && coverage && failed.seq >= coverage.fromSeq && failed.seq <= coverage.toSeq,
      );
      if (!failed || !compaction) throw new Error("no compaction removed a failed call");
      const events = await client.threads.events(thread.id, {
        since: 0,
        limit: 1000,
        types: "compaction.completed",
      });
      const at = events.find(
        (event) => event.type === "compaction.completed" && event.data.compactionId === compaction.id,
      )?.at;
      const next = messages.find((message) => at !== undefined && message.createdAt > at) ?? messages.at(-1);

      await page.goto(`${new URL(server!.instance().url).origin}/#/`);
      await openThread(page, thread.id);
      const notice = await revealNotice(compaction.id, next?.seq ?? 0);
      await notice.locator(byTestId("compaction-diff-link")).click();
      const dialog = page.locator(byTestId("compaction-diff"));
      const line = dialog.locator(`${byTestId("diff-line")}[data-seq="${failed.seq}"]`);
      await line.waitFor({ timeout: UI_TIMEOUT });
      expect(await line.getAttribute("data-carried")).toBe("true");
      expect(await line.textContent()).toContain("failed");
      expect(await line.locator(`${byTestId("diff-entry")}[data-section="Errors"]`).count()).toBe(1);
      const check = dialog.locator(`${byTestId("diff-check")}[data-check="error"]`);
      expect(["pass", "fail"]).toContain(await check.getAttribute("data-ok"));
      await line.scrollIntoViewIfNeeded();
      await screenshot(page, "diff-error-wide");
      await page.keyboard.press("Escape");
      expect(pageErrors).toEqual([]);
    },
    TEST_TIMEOUT,
  );
});
