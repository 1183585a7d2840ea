import { spawnSync } from "node:child_process";
import { delimiter, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigError, loadConfig } from "@longrun/cli";
import { describe, expect, it } from "vitest";

const REPO = fileURLToPath(new URL("../..", import.meta.url));

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe("configuration from the environment (loadConfig)", () => {
  it("has the documented defaults", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8787,
      host: "127.0.0.1",
      dataDir: resolve(".longrun"),
      databaseUrl: `file:${resolve(".longrun", "longrun.db")}`,
      workspaceRoots: [],
      workerConcurrency: 4,
    });
    expect(config.redisUrl).toBeUndefined();
    expect(config.openaiBaseUrl).toBeUndefined();
    expect(config.token).toBeUndefined();
  });

  it("reads every variable", () => {
    const config = loadConfig({
      PORT: "0",
      LONGRUN_DATA_DIR: "/tmp/lr",
      DATABASE_URL: "libsql://db.example.com",
      DATABASE_AUTH_TOKEN: "secret",
      REDIS_URL: "redis://127.0.0.1:6379",
      OPENAI_BASE_URL: "https://api.example.com/v1",
      OPENAI_API_KEY: "sk-test",
      LONGRUN_MODEL: "gpt-4o-mini",
      LONGRUN_MAX_INPUT_TOKENS: "128000",
      LONGRUN_TOKEN: "a-token-of-enough-length",
      LONGRUN_WORKSPACE_ROOTS: ["/srv/a", "/srv/b"].join(delimiter),
      LONGRUN_TIME_ZONE: "Europe/Berlin",
    });
    expect(config).toMatchObject({
      port: 0,
      dataDir: "/tmp/lr",
      databaseUrl: "libsql://db.example.com",
      databaseAuthToken: "secret",
      redisUrl: "redis://127.0.0.1:6379",
      openaiBaseUrl: "https://api.example.com/v1",
      openaiApiKey: "sk-test",
      model: "gpt-4o-mini",
      maxInputTokens: 128_000,
      token: "a-token-of-enough-length",
      workspaceRoots: ["/srv/a", "/srv/b"],
      timeZone: "Europe/Berlin",
    });
  });

  it("treats empty variables as unset", () => {
    expect(loadConfig({ PORT: "", LONGRUN_TOKEN: "", REDIS_URL: " " })).toMatchObject({ port: 8787 });
  });

  it("names each bad value with a clear message", () => {
    expect(problemsOf({ PORT: "eighty" })).toEqual(["PORT: PORT must be a number"]);
    expect(problemsOf({ PORT: "70000" })[0]).toMatch(/^PORT: /);
    expect(problemsOf({ LONGRUN_MAX_INPUT_TOKENS: "12" })).toEqual([
      "LONGRUN_MAX_INPUT_TOKENS: LONGRUN_MAX_INPUT_TOKENS must be at least 1024",
    ]);
    expect(problemsOf({ LONGRUN_MAX_INPUT_TOKENS: "lots" })).toEqual([
      "LONGRUN_MAX_INPUT_TOKENS: LONGRUN_MAX_INPUT_TOKENS must be a number",
    ]);
    expect(problemsOf({ REDIS_URL: "not a url" })).toEqual(["REDIS_URL: REDIS_URL must be a URL"]);
    expect(problemsOf({ LONGRUN_TOKEN: "short" })).toEqual([
      "LONGRUN_TOKEN: LONGRUN_TOKEN must be at least 16 characters",
    ]);
    expect(problemsOf({ OPENAI_BASE_URL: "https://api.example.com/v1" })).toEqual([
      "OPENAI_API_KEY is required with OPENAI_BASE_URL",
    ]);
    expect(problemsOf({ LONGRUN_TIME_ZONE: "Mars/Olympus" })).toEqual([
      "LONGRUN_TIME_ZONE: unknown time zone Mars/Olympus",
    ]);
    // Several bad values are reported together.
    expect(problemsOf({ PORT: "x", REDIS_URL: "nope" })).toHaveLength(2);
  });

  it("`longrun start` refuses a bad value with the message and exit code 2", () => {
    const result = spawnSync(process.execPath, ["--import", "tsx", "packages/cli/src/main.ts", "start"], {
      cwd: REPO,
      env: { ...process.env, PORT: "eighty", LONGRUN_MAX_INPUT_TOKENS: "12" },
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("invalid configuration:");
    expect(result.stderr).toContain("  - PORT: PORT must be a number");
    expect(result.stderr).toContain(
      "  - LONGRUN_MAX_INPUT_TOKENS: LONGRUN_MAX_INPUT_TOKENS must be at least 1024",
    );
  }, 60_000);

  it("reads the API's message cap and model list (LONGRUN_MAX_MESSAGE_CHARS, LONGRUN_MODELS)", () => {
    expect(loadConfig({})).toMatchObject({ maxMessageChars: 200_000, models: [] });
    expect(
      loadConfig({ LONGRUN_MAX_MESSAGE_CHARS: "5000", LONGRUN_MODELS: "gpt-4o-mini, gpt-4.1 ,," }),
    ).toMatchObject({ maxMessageChars: 5_000, models: ["gpt-4o-mini", "gpt-4.1"] });
    expect(problemsOf({ LONGRUN_MAX_MESSAGE_CHARS: "lots" })).toEqual([
      "LONGRUN_MAX_MESSAGE_CHARS: LONGRUN_MAX_MESSAGE_CHARS must be a number",
    ]);
    expect(problemsOf({ LONGRUN_MAX_MESSAGE_CHARS: "2000000" })).toEqual([
      "LONGRUN_MAX_MESSAGE_CHARS: LONGRUN_MAX_MESSAGE_CHARS must be at most 1000000 (the API's hard limit)",
    ]);
  });
});
