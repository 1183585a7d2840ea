import { spawn } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ClientSandbox } from "./client-sandbox.ts";
import { clientBinary } from "./install-clients.ts";

/** What every client run is given: where longrun listens, its token, the model string, the window, the task. */
export interface ClientRunInput {
  baseUrl: string;
  token: string;
  model: string;
  window: number;
  task: string;
  timeoutMs: number;
}

/** What a client process did. */
export interface ClientRun {
  code: number | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
  wallMs: number;
}

/** Runs a client to its end, killed (with its whole process group) after `timeoutMs`. */
export function runProcess(
  command: string,
  args: string[],
  options: { cwd: string; env: Record<string, string>; timeoutMs: number },
): Promise<ClientRun> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid) process.kill(-child.pid, "SIGKILL");
    }, options.timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, timedOut, stdout, stderr, wallMs: Date.now() - started });
    });
  });
}

/** Codex CLI, offline, against longrun's Responses endpoint (its config in the sandbox's CODEX_HOME). */
export async function runCodex(
  sandbox: ClientSandbox,
  input: ClientRunInput & {
    /** Codex's own compaction threshold (default 90 % of the window). */
    autoCompactTokens?: number;
  },
): Promise<ClientRun> {
  const codexHome = join(sandbox.home, ".codex");
  await mkdir(codexHome, { recursive: true });
  await writeFile(
    join(codexHome, "config.toml"),
    [
      `model = "${input.model}"`,
      `model_provider = "longrun"`,
      `approval_policy = "never"`,
      `sandbox_mode = "workspace-write"`,
      `check_for_update_on_startup = false`,
      `web_search = "disabled"`,
      // The client's own compaction would fire from the usage it is told; longrun keeps that below it.
      `model_context_window = ${input.window}`,
      `model_auto_compact_token_limit = ${input.autoCompactTokens ?? Math.floor(input.window * 0.9)}`,
      "",
      "[analytics]",
      "enabled = false",
      "",
      "[feedback]",
      "enabled = false",
      "",
      "[otel]",
      `exporter = "none"`,
      `metrics_exporter = "none"`,
      `trace_exporter = "none"`,
      "",
      "[history]",
      `persistence = "none"`,
      "",
      "[model_providers.longrun]",
      `name = "longrun"`,
      `base_url = "${input.baseUrl}/v1"`,
      `env_key = "LONGRUN_TOKEN"`,
      `wire_api = "responses"`,
      "request_max_retries = 0",
      "stream_max_retries = 0",
      `http_headers = { "x-longrun-max-input-tokens" = "${input.window}" }`,
      "",
      "[features]",
      "plugins = false",
      "",
    ].join("\n"),
  );
  return runProcess(
    process.execPath,
    [clientBinary("codex"), "exec", "--skip-git-repo-check", "--strict-config", "--json", input.task],
    {
      cwd: sandbox.work,
      env: { ...sandbox.env, CODEX_HOME: codexHome, LONGRUN_TOKEN: input.token },
      timeoutMs: input.timeoutMs,
    },
  );
}

/** opencode, offline, against longrun's Chat Completions endpoint (config through OPENCODE_CONFIG). */
export async function runOpencode(
  sandbox: ClientSandbox,
  input: ClientRunInput & {
    /** opencode's own window (its model's limit.context) when it is not longrun's `window`. */
    clientWindow?: number;
  },
): Promise<ClientRun> {
  const configPath = join(sandbox.root, "opencode.json");
  await writeFile(
    configPath,
    JSON.stringify(
      {
        $schema: "https://opencode.ai/config.json",
        model: `longrun/${input.model}`,
        small_model: `longrun/${input.model}`,
        autoupdate: false,
        share: "disabled",
        permission: "allow",
        compaction: { auto: true, prune: false, reserved: 2048 },
        provider: {
          longrun: {
            npm: "@ai-sdk/openai-compatible",
            name: "longrun",
            options: {
              baseURL: `${input.baseUrl}/v1`,
              apiKey: "{env:LONGRUN_TOKEN}",
              headers: { "x-longrun-max-input-tokens": String(input.window) },
            },
            models: {
              [input.model]: {
                name: "sim coder",
                tool_call: true,
                limit: { context: input.clientWindow ?? input.window, output: 2048 },
              },
            },
          },
        },
      },
      null,
      2,
    ),
  );
  return runProcess(clientBinary("opencode"), ["run", "--format", "json", input.task], {
    cwd: sandbox.work,
    env: {
      ...sandbox.env,
      OPENCODE_CONFIG: configPath,
      LONGRUN_TOKEN: input.token,
      OPENCODE_DISABLE_MODELS_FETCH: "1",
      OPENCODE_DISABLE_AUTOUPDATE: "1",
      OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
      OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
      OPENCODE_DISABLE_SHARE: "1",
      OPENCODE_DISABLE_CLAUDE_CODE: "1",
      OPENCODE_DISABLE_EXTERNAL_SKILLS: "1",
    },
    timeoutMs: input.timeoutMs,
  });
}

/**
 * Claude Code, headless (`claude -p`, stream-json), against longrun's Anthropic Messages endpoint:
 * ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY (sent as `x-api-key`), its own config dir, and the switches
 * that keep it off the network (the real-clients README's). The window travels in a custom header.
 */
export async function runClaudeCode(
  sandbox: ClientSandbox,
  input: ClientRunInput & {
    maxTurns: number;
    /** `--tools`: the built-in tools it offers, comma-separated (default all of them). */
    tools?: string;
    /** More of Claude Code's environment switches (its own window, output and file-read limits). */
    env?: Record<string, string>;
  },
): Promise<ClientRun> {
  const configDir = join(sandbox.home, ".claude");
  await mkdir(configDir, { recursive: true });
  return runProcess(
    clientBinary("claude"),
    [
      "-p",
      "--output-format",
      "stream-json",
      "--verbose",
      "--model",
      input.model,
      "--dangerously-skip-permissions",
      "--max-turns",
      String(input.maxTurns),
      // One argument: `--tools a,b` would take the task as a tool name too (the option is variadic).
      ...(input.tools ? [`--tools=${input.tools}`] : []),
      input.task,
    ],
    {
      cwd: sandbox.work,
      env: {
        ...sandbox.env,
        CLAUDE_CONFIG_DIR: configDir,
        ANTHROPIC_BASE_URL: input.baseUrl,
        ANTHROPIC_API_KEY: input.token,
        ANTHROPIC_CUSTOM_HEADERS: `x-longrun-max-input-tokens: ${input.window}`,
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        DISABLE_TELEMETRY: "1",
        DISABLE_AUTOUPDATER: "1",
        DISABLE_ERROR_REPORTING: "1",
        IS_SANDBOX: "1",
        ...input.env,
      },
      timeoutMs: input.timeoutMs,
    },
  );
}

/**
 * pi, headless (`--mode json`), against longrun's Chat Completions (`openai-completions`) or Responses
 * (`openai-responses`) endpoint: a provider in `$PI_CODING_AGENT_DIR/models.json` with the window as
 * the model's contextWindow and in a header, its own compaction on (settings.json), offline switches.
 */
export async function runPi(
  sandbox: ClientSandbox,
  input: ClientRunInput & {
    api: "openai-completions" | "openai-responses";
    /** pi's max output tokens for the model (also its reserve for the gateway's limit). */
    maxTokens: number;
    /** pi's own window (its model's contextWindow) when it is not longrun's `window`. */
    clientWindow?: number;
  },
): Promise<ClientRun> {
  const agentDir = join(sandbox.home, ".pi", "agent");
  await mkdir(agentDir, { recursive: true });
  await writeFile(
    join(agentDir, "models.json"),
    JSON.stringify(
      {
        providers: {
          longrun: {
            baseUrl: `${input.baseUrl}/v1`,
            api: input.api,
            // The name of the variable that holds the key (pi resolves it from the environment).
            apiKey: "LONGRUN_TOKEN",
            headers: { "x-longrun-max-input-tokens": String(input.window) },
            models: [
              {
                id: input.model,
                contextWindow: input.clientWindow ?? input.window,
                maxTokens: input.maxTokens,
              },
            ],
          },
        },
      },
      null,
      2,
    ),
  );
  // pi's own compaction stays on, as its users have it: longrun keeps the history under its threshold.
  await writeFile(
    join(agentDir, "settings.json"),
    JSON.stringify({
      compaction: { enabled: true, reserveTokens: input.maxTokens, keepRecentTokens: 4_000 },
    }),
  );
  return runProcess(
    process.execPath,
    [clientBinary("pi"), "--mode", "json", "--provider", "longrun", "--model", input.model, input.task],
    {
      cwd: sandbox.work,
      env: {
        ...sandbox.env,
        PI_CODING_AGENT_DIR: agentDir,
        PI_OFFLINE: "1",
        PI_SKIP_VERSION_CHECK: "1",
        LONGRUN_TOKEN: input.token,
      },
      timeoutMs: input.timeoutMs,
    },
  );
}

/**
 * qwen-code, headless (a positional prompt is one-shot; `--yolo` approves its tools; stream-json
 * output), against longrun's Chat Completions endpoint. Read off its 0.24.4 bundle: `~/.qwen/
 * settings.json` holds `modelProviders.openai[]` (baseUrl, envKey naming the key's variable,
 * generationConfig.contextWindowSize and customHeaders), `security.auth.selectedType: "openai"`,
 * `model.name`, and the update, usage-statistics and telemetry switches.
 */
export async function runQwen(
  sandbox: ClientSandbox,
  input: ClientRunInput & {
    /** qwen-code's own window (contextWindowSize) when it is not longrun's `window`. */
    clientWindow?: number;
  },
): Promise<ClientRun> {
  const qwenHome = join(sandbox.home, ".qwen");
  await mkdir(qwenHome, { recursive: true });
  await writeFile(
    join(qwenHome, "settings.json"),
    JSON.stringify(
      {
        modelProviders: {
          openai: [
            {
              id: input.model,
              name: "sim coder",
              baseUrl: `${input.baseUrl}/v1`,
              envKey: "LONGRUN_TOKEN",
              generationConfig: {
                contextWindowSize: input.clientWindow ?? input.window,
                customHeaders: { "x-longrun-max-input-tokens": String(input.window) },
              },
            },
          ],
        },
        security: { auth: { selectedType: "openai" } },
        model: { name: input.model },
        general: { enableAutoUpdate: false },
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
      },
      null,
      2,
    ),
  );
  return runProcess(
    process.execPath,
    [clientBinary("qwen"), "--yolo", "--output-format", "stream-json", input.task],
    {
      cwd: sandbox.work,
      env: { ...sandbox.env, LONGRUN_TOKEN: input.token, QWEN_CODE_SUPPRESS_YOLO_WARNING: "1" },
      timeoutMs: input.timeoutMs,
    },
  );
}
