import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { clientReport, threadOf, upstreamOf } from "./support/client-report.ts";
import { createSandbox } from "./support/client-sandbox.ts";
import { type LongrunUnderTest, realClientSuite } from "./support/longrun-under-test.ts";
import { runCodex } from "./support/run-client.ts";

const WINDOW = 16_384;
/** The gateway's hard limit for this window: the window less Codex's default output reserve. */
const LIMIT = WINDOW - 4_096;
const MAIN_TASK =
  "Survey this warehouse project: read its files, keep notes in NOTES.md and finish with REPORT.md.";
const SECOND_TASK = "Skim the docs of this project and write a short REPORT.md about them.";

/** Codex's own usage total for the run (its `turn.completed` line). */
function codexUsage(stdout: string): { input_tokens: number; output_tokens: number } {
  const line = stdout
    .split("\n")
    .reverse()
    .find((candidate) => candidate.includes('"turn.completed"'));
  if (!line) throw new Error(`codex printed no turn.completed:\n${stdout.slice(-2_000)}`);
  return (JSON.parse(line) as { usage: { input_tokens: number; output_tokens: number } }).usage;
}

describe("Codex CLI 0.171 through longrun's OpenAI-compatible gateway (real processes)", () => {
  let env: LongrunUnderTest;
  const sandboxes = realClientSuite((started) => {
    env = started;
  });

  it("does a 40-step task while longrun compacts (the client never does), beside a second Codex that never sees it", async () => {
    const [main, second] = await Promise.all([createSandbox("codex-main"), createSandbox("codex-second")]);
    sandboxes.push(main, second);
    const mainModel = `sim:script=coder:steps=40:ctx=${WINDOW}`;
    const secondModel = `sim:script=coder:steps=12:ctx=${WINDOW}`;
    const common = {
      baseUrl: env.url,
      token: env.longrun.instance.token,
      window: WINDOW,
      timeoutMs: 240_000,
    };
    const [mainRun, secondRun] = await Promise.all([
      runCodex(main, { ...common, model: mainModel, task: MAIN_TASK }),
      runCodex(second, { ...common, model: secondModel, task: SECOND_TASK }),
    ]);
    for (const run of [mainRun, secondRun]) {
      expect(run.timedOut, run.stderr.slice(-2_000)).toBe(false);
      expect(run.code, run.stderr.slice(-2_000)).toBe(0);
    }

    // The task was done: the files it was told to write exist.
    await expect(readFile(join(main.work, "NOTES.md"), "utf8")).resolves.toContain("progress: step 38");
    await expect(readFile(join(main.work, "REPORT.md"), "utf8")).resolves.toContain(
      "Finished after 40 steps",
    );
    await expect(readFile(join(second.work, "REPORT.md"), "utf8")).resolves.toContain(
      "Finished after 12 steps",
    );

    const mainThread = await threadOf(env, (thread) => thread.title.startsWith("codex: Survey"));
    const secondThread = await threadOf(env, (thread) => thread.title.startsWith("codex: Skim"));
    const upstream = upstreamOf(env, mainModel);
    const clientRequests = env.requests.filter(
      (request) => (request.body as { model?: string })?.model === mainModel,
    );
    const report = clientReport({
      client: "codex",
      thread: mainThread,
      upstream,
      clientRequests,
      window: WINDOW,
      wallMs: mainRun.wallMs,
    });
    const { agentCalls } = report;

    expect(report.steps).toBeGreaterThanOrEqual(30);
    expect(report.longrunCompactions).toBeGreaterThanOrEqual(2);
    expect(report.clientCompactions).toBe(0);
    // Every upstream request was accepted by the strict sim model and fit the window.
    expect(upstream.every((entry) => entry.status === 200)).toBe(true);
    expect(report.peakPromptTokens).toBeLessThanOrEqual(LIMIT);
    // The usage Codex was told is the usage of the requests actually sent upstream.
    expect(codexUsage(mainRun.stdout).input_tokens).toBe(
      agentCalls.reduce((sum, entry) => sum + (entry.promptTokens ?? 0), 0),
    );

    // The two conversations are two threads that never see each other's facts or requests.
    expect(mainThread.thread.id).not.toBe(secondThread.thread.id);
    expect(JSON.stringify(mainThread.facts)).not.toContain(second.work);
    expect(JSON.stringify(secondThread.facts)).not.toContain(main.work);
    expect(JSON.stringify(upstreamOf(env, secondModel).map((entry) => entry.body))).not.toContain(main.work);

    // Another tenant's token reaches neither: not by listing, not by id, not by reusing the session key.
    const otherToken = await env.longrun.tokenFor("other-tenant");
    const other = env.longrun.clientFor(otherToken);
    expect((await other.threads.list()).map((thread) => thread.id)).not.toContain(mainThread.thread.id);
    await expect(other.threads.get(mainThread.thread.id)).rejects.toMatchObject({ status: 404 });
    await expect(other.threads.get(secondThread.thread.id)).rejects.toMatchObject({ status: 404 });
    const sessionKey = (clientRequests[0]?.body as { prompt_cache_key?: string } | undefined)
      ?.prompt_cache_key;
    expect(sessionKey).toBeTruthy();
    const reuse = await fetch(`${env.longrun.instance.url}/v1/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${otherToken}`, "content-type": "application/json" },
      body: JSON.stringify({
        model: mainModel,
        input: [{ type: "message", role: "user", content: "What did you read?" }],
        tools: [{ type: "function", name: "exec_command", parameters: { type: "object" } }],
        prompt_cache_key: sessionKey,
        stream: false,
      }),
    });
    expect(reuse.status).toBe(200);
    expect(JSON.stringify(upstream.at(-1)?.body)).not.toContain("What did you read?");
    const otherThreads = await other.threads.list();
    expect(otherThreads).toHaveLength(1);
    expect(otherThreads[0]?.id).not.toBe(mainThread.thread.id);
    const after = await threadOf(env, (thread) => thread.title.startsWith("codex: Survey"));
    expect(after.facts).toHaveLength(mainThread.facts.length);
  }, 300_000);
});
