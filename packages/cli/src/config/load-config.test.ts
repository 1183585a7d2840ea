import { readFileSync } from "node:fs";
import { delimiter, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { commandHelp, defaultText, environmentHelp, mainHelp } from "./help.ts";
import { ConfigError, knownVariables, loadConfig } from "./load-config.ts";
import { type ConfigCommand, REQUIREMENTS, VARIABLES } from "./variables.ts";

function problemsOf(env: Record<string, string>, command?: ConfigCommand): string[] {
  try {
    loadConfig(env, command);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe("loadConfig", () => {
  it("reads the API's message cap and model list (LONGRUN_MAX_MESSAGE_CHARS, LONGRUN_MODELS)", () => {
    expect(loadConfig({})).toMatchObject({ maxMessageChars: 200_000, models: [] });
    expect(
      loadConfig({ LONGRUN_MAX_MESSAGE_CHARS: "5000", LONGRUN_MODELS: "gpt-4o-mini, gpt-4.1 ,," }),
    ).toMatchObject({ maxMessageChars: 5_000, models: ["gpt-4o-mini", "gpt-4.1"] });
    expect(problemsOf({ LONGRUN_MAX_MESSAGE_CHARS: "lots" })).toEqual([
      'LONGRUN_MAX_MESSAGE_CHARS: must be a whole number from 1 to 1000000, got "lots"',
    ]);
    expect(problemsOf({ LONGRUN_MAX_MESSAGE_CHARS: "2000000" })).toEqual([
      'LONGRUN_MAX_MESSAGE_CHARS: must be a whole number from 1 to 1000000, got "2000000"',
    ]);
  });

  it("reads the reconciler's and the event retention's settings", () => {
    expect(loadConfig({})).toMatchObject({ reconcileMs: 15_000 });
    expect(loadConfig({}).staleMs).toBeUndefined();
    expect(
      loadConfig({
        LONGRUN_STALE_MS: "9000",
        LONGRUN_EVENTS_PER_THREAD: "500",
        LONGRUN_EVENT_MAX_AGE_MS: "86400000",
      }),
    ).toMatchObject({ staleMs: 9_000, eventsPerThread: 500, eventMaxAgeMs: 86_400_000 });
    expect(problemsOf({ LONGRUN_EVENTS_PER_THREAD: "10" })).toEqual([
      'LONGRUN_EVENTS_PER_THREAD: must be a whole number of at least 100, got "10"',
    ]);
  });

  it("has the documented defaults", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8787,
      host: "127.0.0.1",
      dataDir: resolve(".longrun"),
      databaseUrl: `file:${resolve(".longrun", "longrun.db")}`,
      workspaceRoots: [],
      queuePrefix: "longrun",
      workerConcurrency: 4,
      workerDrainMs: 10_000,
      leaseMs: 30_000,
      modelEndpoint: null,
    });
    expect(config.redisUrl).toBeUndefined();
    expect(config.simUrl).toBeUndefined();
    expect(config.searchUrl).toBeUndefined();
  });

  it("puts every variable in its Config field", () => {
    const config = loadConfig({
      LONGRUN_DATA_DIR: "/srv/longrun",
      LONGRUN_SIM_URL: "http://sim:4010/",
      LONGRUN_SEARCH_URL: "http://search.internal/q",
      LONGRUN_WORKSPACE_ROOTS: ["/srv/a", "/srv/b"].join(delimiter),
      LONGRUN_WORKER_DRAIN_MS: "45000",
      LONGRUN_TIME_ZONE: "Europe/Berlin",
    });
    expect(config).toMatchObject({
      dataDir: "/srv/longrun",
      databaseUrl: "file:/srv/longrun/longrun.db",
      simUrl: "http://sim:4010",
      searchUrl: "http://search.internal/q",
      workspaceRoots: ["/srv/a", "/srv/b"],
      workerDrainMs: 45_000,
      timeZone: "Europe/Berlin",
      modelEndpoint: { kind: "sim", baseURL: "http://sim:4010/v1", apiKey: "sim" },
    });
    // One field per variable (DATABASE_URL folds into databaseUrl), plus the derived endpoint.
    const fields = Object.values(VARIABLES).map((entry) => entry.key);
    expect(new Set(fields).size).toBe(fields.length);
    for (const field of fields.filter((key) => key !== "databaseUrlSetting"))
      expect(config).toHaveProperty(field);
  });

  it("reads the upstream wire format and Anthropic's settings; Anthropic alone needs the model named", () => {
    expect(loadConfig({}).upstreamApi).toBe("chat-completions");
    const config = loadConfig({
      LONGRUN_UPSTREAM_API: "anthropic-messages",
      ANTHROPIC_API_KEY: "sk-ant",
      ANTHROPIC_BASE_URL: "https://anthropic.internal",
      LONGRUN_MODEL: "claude-sonnet-4-5",
      LONGRUN_THINKING_BUDGET: "2048",
    });
    expect(config).toMatchObject({
      upstreamApi: "anthropic-messages",
      anthropicApiKey: "sk-ant",
      anthropicBaseUrl: "https://anthropic.internal",
      thinkingBudgetTokens: 2048,
    });
    expect(problemsOf({ LONGRUN_UPSTREAM_API: "anthropic-messages", ANTHROPIC_API_KEY: "k" })).toEqual([
      "LONGRUN_MODEL: required with ANTHROPIC_API_KEY when OPENAI_BASE_URL is unset (the Claude model to run)",
    ]);
    expect(problemsOf({ LONGRUN_UPSTREAM_API: "messages" })[0]).toMatch(
      /^LONGRUN_UPSTREAM_API: must be one of/,
    );
  });

  it("prefers nothing silently: an endpoint and a sim URL together are refused", () => {
    expect(
      problemsOf({
        OPENAI_BASE_URL: "https://api.example.com/v1",
        OPENAI_API_KEY: "k",
        LONGRUN_SIM_URL: "http://s",
      }),
    ).toEqual(["LONGRUN_SIM_URL: set either OPENAI_BASE_URL or LONGRUN_SIM_URL, not both"]);
    const config = loadConfig({ OPENAI_BASE_URL: "https://api.example.com/v1/", OPENAI_API_KEY: "k" });
    expect(config.modelEndpoint).toEqual({
      kind: "openai",
      baseURL: "https://api.example.com/v1",
      apiKey: "k",
    });
  });

  it("names each bad value once, with what was given", () => {
    expect(problemsOf({ PORT: "eighty" })).toEqual([
      'PORT: must be a whole number from 0 to 65535, got "eighty"',
    ]);
    expect(problemsOf({ LONGRUN_WORKER_CONCURRENCY: "0" })).toEqual([
      'LONGRUN_WORKER_CONCURRENCY: must be a whole number from 1 to 256, got "0"',
    ]);
    expect(problemsOf({ REDIS_URL: "localhost:6379" })).toEqual([
      'REDIS_URL: must start with redis: or rediss://, got "localhost:6379"',
    ]);
    expect(problemsOf({ REDIS_URL: "not a url" })).toEqual(['REDIS_URL: must be a URL, got "not a url"']);
    expect(problemsOf({ DATABASE_URL: "postgres://db" })[0]).toMatch(/^DATABASE_URL: must start with file:/);
    expect(problemsOf({ LONGRUN_TOKEN: "short" })).toEqual(["LONGRUN_TOKEN: must be at least 16 characters"]);
    expect(problemsOf({ LONGRUN_TIME_ZONE: "Mars/Olympus" })).toEqual([
      'LONGRUN_TIME_ZONE: unknown time zone "Mars/Olympus"',
    ]);
    expect(problemsOf({ PORT: "x", REDIS_URL: "nope", LONGRUN_LEASE_MS: "5" })).toHaveLength(3);
  });

  it("checks what a command requires", () => {
    expect(problemsOf({}, "start")).toEqual([]);
    expect(problemsOf({}, "token")).toEqual([]);
    expect(problemsOf({}, "worker")).toEqual([
      "REDIS_URL: required by `longrun worker` (distributed mode keeps its queues, leases and pub/sub in Redis)",
      "OPENAI_BASE_URL or LONGRUN_SIM_URL: required by `longrun worker` (distributed processes do not start a sim model of their own)",
    ]);
    expect(problemsOf({ REDIS_URL: "redis://r:6379", LONGRUN_SIM_URL: "http://sim:4010" }, "serve")).toEqual(
      [],
    );
  });
});

describe("help generated from the variables", () => {
  const commands: ConfigCommand[] = ["start", "serve", "worker", "token"];

  it("lists every variable a command reads, with its description and default", () => {
    for (const command of commands) {
      const help = commandHelp(command) ?? "";
      expect(help).toContain(`Usage: longrun ${command}`);
      for (const [name, entry] of Object.entries(VARIABLES)) {
        const line = help.split("\n").find((row) => row.trim().startsWith(`${name} `));
        if (!entry.commands.includes(command)) {
          expect(line, `${name} in ${command} help`).toBeUndefined();
          continue;
        }
        expect(line, `${name} in ${command} help`).toContain(entry.description);
        const required = REQUIREMENTS.some(
          (rule) => rule.commands.includes(command) && rule.anyOf.includes(name as never),
        );
        expect(line).toContain(required ? "[required" : defaultText(entry));
      }
    }
  });

  it("every variable has a description and is read by some command", () => {
    for (const [name, entry] of Object.entries(VARIABLES)) {
      expect(entry.description.length, name).toBeGreaterThan(10);
      expect(entry.commands.length, name).toBeGreaterThan(0);
    }
    expect(knownVariables()).toContain("LONGRUN_SIM_URL");
    expect(knownVariables()).toContain("LONGRUN_SEARCH_URL");
  });

  it("shows computed defaults readably", () => {
    expect(environmentHelp("start")).toMatch(/PORT\s+HTTP \+ WebSocket port \(0 picks a free one\) \[8787\]/);
    expect(environmentHelp("worker")).toMatch(/LONGRUN_WORKER_DRAIN_MS\s+.*\[10000\]/);
    expect(environmentHelp("start")).toMatch(/LONGRUN_DATA_DIR\s+.*\[\.longrun\]/);
  });

  it("the main help names every command; flags appear in their command's help", () => {
    const help = mainHelp();
    for (const command of ["start", "serve", "worker", "token create", "replay", "sim"])
      expect(help).toContain(`longrun ${command}`);
    expect(commandHelp("token")).toContain("--tenant T");
    expect(commandHelp("sim")).toContain("--port N");
    expect(commandHelp("nope")).toBeNull();
  });
});

describe("the README's configuration table", () => {
  it("lists exactly the variables of the schema", () => {
    const readme = readFileSync(fileURLToPath(new URL("../../../../README.md", import.meta.url)), "utf8");
    const section = readme.slice(readme.indexOf("## Configuration"), readme.indexOf("## Modes"));
    const documented = [...section.matchAll(/^\| `([A-Z_]+)`/gm)].map((match) => match[1]);
    expect(documented.sort()).toEqual(knownVariables().sort());
  });
});
