import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { createClient, type LongrunClient } from "@longrun/client";
import type { LongrunEvent } from "@longrun/protocol";
import { NOTES_PATH } from "@longrun/sim-model";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ComposeFile,
  composeProblems,
  durationMs,
  interpolate,
  readComposeFile,
  readDockerfile,
} from "./support/compose-file.ts";
import { type LocalDeployment, startComposeLocally } from "./support/compose-processes.ts";

// infra/docker-compose.yml checked against the CLI's own configuration schema, then run: each service's
// command and environment as local processes (no container runtime here), a thread created through the
// API server and its run finished by the workers.

const REPO = fileURLToPath(new URL("../..", import.meta.url));
const COMPOSE = join(REPO, "infra/docker-compose.yml");
const DOCKERFILE = join(REPO, "infra/Dockerfile");
const SHELL = { LONGRUN_TOKEN: "compose-test-token-0123456789" };

const compose = readComposeFile(COMPOSE, SHELL);
const image = readDockerfile(DOCKERFILE);

/** A copy of the compose file with one service's environment changed. */
function withEnvironment(service: string, change: (env: Record<string, unknown>) => void): ComposeFile {
  const copy = structuredClone(compose);
  const target = copy.services[service];
  if (!target) throw new Error(`no service ${service}`);
  target.environment = { ...(target.environment ?? {}) };
  change(target.environment);
  return copy;
}

describe("infra/docker-compose.yml against the CLI's schema", () => {
  it("names only variables longrun reads, with valid values, and every one each command requires", () => {
    expect(composeProblems(compose, image)).toEqual([]);
  });

  it("fails on a variable the CLI does not know, a refused value, or a missing required one", () => {
    const typo = withEnvironment("worker", (env) => {
      env.LONGRUN_WORKER_CONCURENCY = "4";
    });
    expect(composeProblems(typo, image)).toEqual([
      "worker: LONGRUN_WORKER_CONCURENCY is not a variable longrun reads",
    ]);
    const noRedis = withEnvironment("worker", (env) => {
      delete env.REDIS_URL;
    });
    expect(composeProblems(noRedis, image)).toEqual([
      "worker: REDIS_URL: required by `longrun worker` (distributed mode keeps its queues, leases and pub/sub in Redis)",
    ]);
    const shortToken = withEnvironment("serve", (env) => {
      env.LONGRUN_TOKEN = "short";
    });
    expect(composeProblems(shortToken, image)).toEqual([
      "serve: LONGRUN_TOKEN: must be at least 16 characters",
    ]);
  });

  it("requires LONGRUN_TOKEN from the shell, and one model endpoint at a time", () => {
    expect(() => readComposeFile(COMPOSE, {})).toThrow(/LONGRUN_TOKEN is required/);
    const realModel = readComposeFile(COMPOSE, {
      ...SHELL,
      OPENAI_BASE_URL: "https://api.example.com/v1",
      OPENAI_API_KEY: "sk-test",
      LONGRUN_SIM_URL: "",
    });
    expect(composeProblems(realModel, image)).toEqual([]);
    const both = readComposeFile(COMPOSE, {
      ...SHELL,
      OPENAI_BASE_URL: "https://api.example.com/v1",
      OPENAI_API_KEY: "k",
    });
    expect(composeProblems(both, image)[0]).toMatch(
      /set either OPENAI_BASE_URL or LONGRUN_SIM_URL, not both/,
    );
  });

  it("shares one volume between serve and every worker, and drains workers within their grace period", () => {
    const mounts = (name: string) => compose.services[name]?.volumes ?? [];
    expect(mounts("serve")).toContain("data:/data");
    expect(mounts("worker")).toContain("data:/data");
    const worker = compose.services.worker;
    expect(worker?.ports).toBeUndefined(); // `--scale worker=N` needs no fixed host port
    expect(durationMs(worker?.stop_grace_period ?? "10s")).toBeGreaterThan(
      Number(worker?.environment?.LONGRUN_WORKER_DRAIN_MS),
    );
  });

  it("the image: non-root, listening on all interfaces, data under /data, a health check", () => {
    expect(image.user).toBe("node");
    expect(image.env).toMatchObject({ LONGRUN_HOST: "0.0.0.0", LONGRUN_DATA_DIR: "/data" });
    expect(image.healthcheck).toContain("/healthz");
    expect(image.entrypoint).toEqual(["node", "/app/packages/cli/bin/longrun.js"]);
  });

  it("substitutes variables like compose", () => {
    // biome-ignore-start lint/suspicious/noTemplateCurlyInString: compose's syntax, not a JS template
    expect(interpolate("${A-x} ${B:-y} ${C-z} $$D", { A: "", B: "", C: "c" })).toBe(" y c $D");
    expect(() => interpolate("${A:?needed}", { A: "" })).toThrow("A is required: needed");
    // biome-ignore-end lint/suspicious/noTemplateCurlyInString: compose's syntax, not a JS template
  });
});

describe("infra/docker-compose.yml as local processes", () => {
  let scratch: string;
  let deployment: LocalDeployment;
  let client: LongrunClient | undefined;

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), "longrun-compose-"));
    deployment = await startComposeLocally(compose, image, { repo: REPO, scratch, scale: { worker: 2 } });
  }, 120_000);

  afterAll(async () => {
    client?.close();
    await deployment?.stop();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it("starts redis, the sim, serve and two workers; a thread's run finishes through them", async () => {
    const running = deployment.processes.map((local) => local.service);
    expect(running.sort()).toEqual(["redis", "serve", "sim", "worker", "worker"]);
    // Every longrun process sees the same data volume and the libSQL file standing in for sqld.
    const dataDir = deployment.volumes.get("data") ?? "";
    for (const service of ["serve", "worker"]) {
      expect(deployment.environments.get(service)).toMatchObject({
        LONGRUN_DATA_DIR: dataDir,
        DATABASE_URL: deployment.databaseUrl,
      });
    }

    const api = createClient({
      baseUrl: `http://127.0.0.1:${deployment.ports.get("serve")}`,
      token: SHELL.LONGRUN_TOKEN,
    });
    client = api;
    expect(
      await (await fetch(`http://127.0.0.1:${deployment.ports.get("serve")}/readyz`)).json(),
    ).toMatchObject({ ok: true });
    const thread = await api.threads.create({ title: "compose", maxInputTokens: 8_000, simSteps: 12 });
    expect(thread.modelProfile.model).toMatch(/^sim/);
    expect(relative(dataDir, thread.workspaceDir).startsWith("..")).toBe(false);
    const finished = new Promise<LongrunEvent>((resolve) => {
      api.subscribe(
        { threadId: thread.id, types: ["run.*"], since: 0 },
        { onEvent: (event) => event.type !== "run.started" && resolve(event) },
      );
    });
    await api.threads.sendMessage(thread.id, { content: "Explore the workspace and report." });
    const outcome = await finished;
    expect(outcome.type, JSON.stringify(outcome.data)).toBe("run.completed");
    const events = await api.threads.events(thread.id, { since: 0 });
    expect(events.filter((event) => event.type === "tool.completed").length).toBeGreaterThanOrEqual(12);
    // The workers' tools wrote into the shared volume: the explorer's notes are in the thread's workspace.
    expect(existsSync(join(thread.workspaceDir, NOTES_PATH))).toBe(true);
    const workers = deployment.processes.filter((local) => local.service === "worker");
    expect(workers.every((worker) => worker.child.exitCode === null)).toBe(true);
  }, 120_000);
});
