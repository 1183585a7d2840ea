import { spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { demoProjectFiles } from "@longrun/sim-model";
import { clientBinary } from "./install-clients.ts";

/** A temporary home (HOME, XDG folders) and a work folder holding a small project. */
export interface ClientSandbox {
  root: string;
  home: string;
  work: string;
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

export async function createSandbox(prefix: string): Promise<ClientSandbox> {
  const root = await mkdtemp(join(tmpdir(), `longrun-${prefix}-`));
  const home = join(root, "home");
  const work = join(root, "work");
  for (const [path, content] of Object.entries(demoProjectFiles())) {
    await mkdir(dirname(join(work, path)), { recursive: true });
    await writeFile(join(work, path), content);
  }
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_STATE_HOME: join(home, ".local", "state"),
    TMPDIR: join(root, "tmp"),
    NO_COLOR: "1",
  };
  for (const folder of [
    home,
    env.XDG_CONFIG_HOME!,
    env.XDG_DATA_HOME!,
    env.XDG_CACHE_HOME!,
    env.XDG_STATE_HOME!,
    env.TMPDIR!,
  ]) {
    await mkdir(folder, { recursive: true });
  }
  return { root, home, work, env, cleanup: () => rm(root, { recursive: true, force: true }) };
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
  input: {
    baseUrl: string;
    token: string;
    model: string;
    window: number;
    task: string;
    timeoutMs: number;
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
  input: { baseUrl: string; token: string; model: string; window: number; task: string; timeoutMs: number },
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
                limit: { context: input.window, output: 2048 },
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
