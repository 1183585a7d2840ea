import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createTestRedis, startTestSimModel, type TestRedis, type TestSimModel } from "@longrun/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openLog } from "./compose.ts";
import { loadConfig } from "./config/load-config.ts";
import { checkDataDir, checkModel, checkRedis, checkSharedVolume, preflight, redact } from "./preflight.ts";
import { StartupError } from "./startup-error.ts";

const BIN = fileURLToPath(new URL("../bin/longrun.js", import.meta.url));
let scratch: string;
let redis: TestRedis;
let sim: TestSimModel;
let refusing: Server;
let refusingUrl: string;
/** A port nothing listens on: a server bound and closed again. */
let closedPort: number;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "longrun-preflight-"));
  redis = await createTestRedis();
  sim = await startTestSimModel();
  refusing = createServer((_request, response) => {
    response.writeHead(401, { "content-type": "application/json" }).end('{"error":"bad key"}');
  });
  refusing.listen(0, "127.0.0.1");
  await once(refusing, "listening");
  refusingUrl = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}/v1`;
  const probe = createServer().listen(0, "127.0.0.1");
  await once(probe, "listening");
  closedPort = (probe.address() as AddressInfo).port;
  await new Promise((resolve) => probe.close(resolve));
});

afterAll(async () => {
  refusing?.close();
  await sim?.close();
  await redis?.cleanup();
  await rm(scratch, { recursive: true, force: true });
});

describe("dependency checks", () => {
  it("Redis: reachable, or named with the connection error", async () => {
    expect(await checkRedis(redis.url)).toBeNull();
    expect(await checkRedis(`redis://:hunter2@127.0.0.1:${closedPort}`)).toBe(
      `REDIS_URL redis://:***@127.0.0.1:${closedPort}: cannot reach Redis: connect ECONNREFUSED 127.0.0.1:${closedPort}`,
    );
  });

  it("data dir: created when missing, refused when it cannot hold files", async () => {
    expect(await checkDataDir(join(scratch, "fresh", "data"))).toBeNull();
    const file = join(scratch, "a-file");
    await writeFile(file, "x");
    expect(await checkDataDir(join(file, "data"))).toBe(
      `LONGRUN_DATA_DIR ${join(file, "data")}: not writable (ENOTDIR); workspaces and history files live here`,
    );
  });

  it("model endpoint: answers, refuses the key, or cannot be reached", async () => {
    expect(await checkModel({ kind: "openai", baseURL: sim.baseURL, apiKey: "k" })).toBeNull();
    expect(await checkModel({ kind: "openai", baseURL: refusingUrl, apiKey: "k" })).toBe(
      `OPENAI_API_KEY: the model endpoint ${refusingUrl} refused it (HTTP 401)`,
    );
    const nowhere = `http://127.0.0.1:${closedPort}/v1`;
    expect(await checkModel({ kind: "sim", baseURL: nowhere, apiKey: "sim" })).toBe(
      `LONGRUN_SIM_URL ${nowhere}: cannot reach the model endpoint: connect ECONNREFUSED 127.0.0.1:${closedPort}`,
    );
  });

  it("shared volume: every process of a deployment must see the same data dir", async () => {
    const shared = join(scratch, "shared");
    const other = join(scratch, "other");
    expect(await checkDataDir(shared)).toBeNull();
    expect(await checkDataDir(other)).toBeNull();
    expect(await checkSharedVolume(shared, redis.url, redis.prefix)).toBeNull();
    // A second process on the same volume agrees; one with a volume of its own is refused.
    expect(await checkSharedVolume(shared, redis.url, redis.prefix)).toBeNull();
    const refused = await checkSharedVolume(other, redis.url, redis.prefix);
    const id = (await readFile(join(shared, "volume-id"), "utf8")).trim();
    expect(refused).toContain(`LONGRUN_DATA_DIR ${other}: not the volume the other longrun processes share`);
    expect(refused).toContain(`the deployment's is ${id}`);
    expect(refused).toContain(`delete the Redis key ${redis.prefix}:volume-id`);
  });

  it("redacts passwords in URLs", () => {
    expect(redact("redis://user:secret@host:6379/0")).toBe("redis://user:***@host:6379/0");
    expect(redact("not a url")).toBe("not a url");
  });
});

describe("preflight", () => {
  it("reports every unreachable dependency at once and opens no store", async () => {
    const file = join(scratch, "blocker");
    await writeFile(file, "x");
    const config = loadConfig(
      {
        REDIS_URL: `redis://127.0.0.1:${closedPort}`,
        LONGRUN_SIM_URL: `http://127.0.0.1:${closedPort}`,
        LONGRUN_DATA_DIR: join(file, "data"),
        DATABASE_URL: `http://127.0.0.1:${closedPort}`,
        LONGRUN_WORKSPACE_ROOTS: join(scratch, "missing-root"),
      },
      "worker",
    );
    const error = await preflight(config, "worker", () => openLog(config)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StartupError);
    const problems = (error as StartupError).problems;
    expect(problems.map((problem) => problem.split(" ")[0])).toEqual([
      "REDIS_URL",
      "LONGRUN_DATA_DIR",
      "LONGRUN_WORKSPACE_ROOTS:",
      "LONGRUN_SIM_URL",
      "DATABASE_URL",
    ]);
    expect(problems[4]).toContain(`cannot open the database: connect ECONNREFUSED 127.0.0.1:${closedPort}`);
  });

  it("returns the opened store when everything answers", async () => {
    const dataDir = join(scratch, "ok");
    const config = loadConfig(
      {
        REDIS_URL: redis.url,
        LONGRUN_QUEUE_PREFIX: `${redis.prefix}:ok`,
        LONGRUN_SIM_URL: sim.server.url,
        LONGRUN_DATA_DIR: dataDir,
      },
      "serve",
    );
    const store = await preflight(config, "serve", () => openLog(config));
    await store.ping();
    await store.close();
  });

  it("`longrun worker` exits 1 at start with one line per problem, before taking any job", async () => {
    const child = spawn(process.execPath, [BIN, "worker"], {
      env: {
        ...process.env,
        REDIS_URL: `redis://127.0.0.1:${closedPort}`,
        LONGRUN_SIM_URL: `http://127.0.0.1:${closedPort}`,
        LONGRUN_DATA_DIR: join(scratch, "worker-data"),
        LONGRUN_QUEUE_PREFIX: redis.prefix,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk;
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk;
    });
    const [code] = (await once(child, "exit")) as [number];
    expect(code).toBe(1);
    expect(output).toContain("longrun worker cannot start:\n");
    expect(output).toContain(`  - REDIS_URL redis://127.0.0.1:${closedPort}: cannot reach Redis`);
    expect(output).toContain(
      `  - LONGRUN_SIM_URL http://127.0.0.1:${closedPort}/v1: cannot reach the model endpoint`,
    );
    expect(output).not.toContain("processing jobs");
  }, 60_000);
});
