import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { SimModelServer } from "@longrun/sim-model";
import { FIRST_USE_INSTALL_TIMEOUT_MS } from "@longrun/testing";
import { afterAll, beforeAll, expect } from "vitest";
import { type EmbeddedTestInstance, startGatewayOverSim } from "../../e2e/support/embedded-instance.ts";
import { sessionByFolder } from "./client-report.ts";
import type { ClientSandbox } from "./client-sandbox.ts";
import { installRealClients } from "./install-clients.ts";
import { type RecordedRequest, startRecordingProxy } from "./recording-proxy.ts";
import type { ClientRun } from "./run-client.ts";

/** Embedded longrun whose upstream is a strict sim model, with a recording proxy in front of it. */
export interface LongrunUnderTest {
  sim: SimModelServer;
  longrun: EmbeddedTestInstance;
  /** Where clients point their base URL (the proxy). */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startLongrunUnderTest(): Promise<LongrunUnderTest> {
  const gateway = await startGatewayOverSim({ logLimit: 5_000, logBodies: true });
  const proxy = await startRecordingProxy(gateway.longrun.instance.url);
  return {
    sim: gateway.sim,
    longrun: gateway.longrun,
    url: proxy.url,
    requests: proxy.requests,
    async close() {
      await proxy.close();
      await gateway.close();
    },
  };
}

/**
 * The hooks every real-client file shares: the clients installed on first use (from their own lockfile),
 * one longrun under test handed to `started`, and at the end longrun closed and every sandbox pushed onto
 * the returned list removed.
 */
export function realClientSuite(started: (env: LongrunUnderTest) => void): ClientSandbox[] {
  let env: LongrunUnderTest | undefined;
  const sandboxes: ClientSandbox[] = [];
  beforeAll(installRealClients, FIRST_USE_INSTALL_TIMEOUT_MS);
  beforeAll(async () => {
    env = await startLongrunUnderTest();
    started(env);
  });
  afterAll(async () => {
    await env?.close();
    for (const sandbox of sandboxes) await sandbox.cleanup();
  });
  return sandboxes;
}

/** The task every real-client test gives: the sim's coder script writes NOTES.md, then REPORT.md. */
export const SURVEY_TASK =
  "Survey this warehouse project: read its files, keep notes in NOTES.md and finish with REPORT.md.";

/** The client ran to its end in time, exit 0, and wrote the notes (up to `progressStep`) and the report. */
export async function expectSurveyDone(
  run: ClientRun,
  work: string,
  expected: { steps: number; progressStep: number },
): Promise<void> {
  expect(run.timedOut, run.stderr.slice(-2_000)).toBe(false);
  expect(run.code, `${run.stdout.slice(-2_000)}\n${run.stderr.slice(-2_000)}`).toBe(0);
  await expect(readFile(join(work, "NOTES.md"), "utf8")).resolves.toContain(
    `progress: step ${expected.progressStep}`,
  );
  await expect(readFile(join(work, "REPORT.md"), "utf8")).resolves.toContain(
    `Finished after ${expected.steps} steps`,
  );
}

/**
 * A 50-step survey of a client whose own window is below longrun's, checked as issue 34 asks: the task
 * finished, fewer than 3 client compactions, each answered from longrun's compaction (`askedWith`, the
 * client's summary request's words, never reached the upstream), nothing refused up or down. Returns
 * the session (by its working folder) for the client's own checks.
 */
export async function expectOwnWindowSession(
  env: LongrunUnderTest,
  run: ClientRun,
  input: { client: string; model: string; work: string; window: number; askedWith: string },
) {
  expect(run.timedOut, run.stderr.slice(-2_000)).toBe(false);
  expect(run.code, `${run.stdout.slice(-2_000)}\n${run.stderr.slice(-2_000)}`).toBe(0);
  await expect(readFile(join(input.work, "REPORT.md"), "utf8")).resolves.toContain("Finished after 50 steps");
  const session = await sessionByFolder(env, { ...input, wallMs: run.wallMs });
  const { clientRequests, upstream, report } = session;
  expect(report.steps).toBeGreaterThanOrEqual(50);
  expect(report.clientCompactions).toBeLessThan(3);
  expect(clientRequests.every((request) => request.status === 200)).toBe(true);
  expect(JSON.stringify(upstream.map((entry) => entry.body))).not.toContain(input.askedWith);
  expect(upstream.every((entry) => entry.status === 200)).toBe(true);
  return session;
}
