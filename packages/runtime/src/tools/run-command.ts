import { randomUUID } from "node:crypto";
import { StringDecoder } from "node:string_decoder";
import { z } from "zod";
import { recordCommandChanges, workspaceManifest } from "../snapshots/command-changes.ts";
import { BoundedBuffer } from "./bounded-buffer.ts";
import { type Ending, launchCommand } from "./command-launch.ts";
import { defineTool } from "./types.ts";

const DEFAULT_TIMEOUT_MS = 120_000;
const MAX_TIMEOUT_MS = 30 * 60_000;
/** After the sweep, a process that escaped it (cleared environment) may still hold the pipes open. */
const CLOSE_GRACE_MS = 2_000;

// Commands get a small, explicit environment: the server's secrets (API keys, tokens) are not theirs.
const PASSED_ENV = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "LANG",
  "LC_ALL",
  "LC_CTYPE",
  "TZ",
  "TMPDIR",
  "TERM",
];

function commandEnv(cwd: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PWD: cwd };
  for (const name of PASSED_ENV) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

const RunCommandArgs = z.object({
  command: z.string().min(1).describe("Shell command, run with /bin/sh -c in the workspace folder."),
  timeoutMs: z
    .number()
    .int()
    .min(1)
    .max(MAX_TIMEOUT_MS)
    .optional()
    .describe(`Kill the command after this many milliseconds (default ${DEFAULT_TIMEOUT_MS}).`),
});

/**
 * run_command: a shell command in the workspace; output bounded. When the call ends — exit, timeout
 * or cancel — every process it started is killed: it runs in its own PID namespace (or, where there
 * is none, its own process group plus an environment marker), so nothing it started (`cmd &`,
 * `setsid`, `env -i`, double forks, `nohup`) outlives it. The files it created, changed or deleted
 * (told by size and times, before and after) are snapshotted with its result.
 */
export const runCommandTool = defineTool({
  name: "run_command",
  description:
    "Run a shell command (/bin/sh -c) with the workspace as the current folder. Returns combined " +
    "stdout/stderr (long output is cut in the middle) and the exit code. Processes it leaves running " +
    "in the background are killed when it ends. May require user approval.",
  schema: RunCommandArgs,
  async run(args, { workspace, context, signal, outputLimit }) {
    const timeoutMs = args.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    // The files as they were, so what the command changed is snapshotted like the file tools' changes.
    const manifest = await workspaceManifest(workspace);
    const output = new BoundedBuffer(Math.floor(outputLimit / 2));
    const command = launchCommand(args.command, {
      cwd: workspace.root,
      env: commandEnv(workspace.root),
      marker: randomUUID(),
    });
    const decoders = { stdout: new StringDecoder("utf8"), stderr: new StringDecoder("utf8") };
    command.stdout.on("data", (chunk: Buffer) => output.append(decoders.stdout.write(chunk)));
    command.stderr.on("data", (chunk: Buffer) => output.append(decoders.stderr.write(chunk)));

    let stopped: "timeout" | "cancelled" | null = null;
    const stop = (reason: "timeout" | "cancelled") => {
      if (stopped) return;
      stopped = reason;
      command.stop();
    };
    const timer = setTimeout(() => stop("timeout"), timeoutMs);
    const onAbort = () => stop("cancelled");
    signal?.addEventListener("abort", onAbort, { once: true });
    if (signal?.aborted) onAbort();

    let ending: Ending;
    try {
      ending = await command.ended;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
    // However it ended, nothing it started may outlive the call.
    const leftovers = await command.sweep();
    // A process that escaped the sweep (it cleared its environment) may still hold the pipes open.
    let graceTimer: NodeJS.Timeout | undefined;
    await Promise.race([
      command.closed,
      new Promise((resolve) => (graceTimer = setTimeout(resolve, CLOSE_GRACE_MS))),
    ]);
    clearTimeout(graceTimer);
    command.stdout.destroy();
    command.stderr.destroy();
    await recordCommandChanges(workspace, context, manifest, await workspaceManifest(workspace));

    output.append(decoders.stdout.end() + decoders.stderr.end());
    const text = output.text();
    const body = text === "" ? "(no output)" : text.replace(/\n$/, "");
    if ("error" in ending)
      return { status: "error", output: `Could not start the command: ${ending.error.message}` };
    if (stopped === "timeout") {
      return { status: "error", output: `${body}\n[timed out after ${timeoutMs} ms; process group killed]` };
    }
    if (stopped === "cancelled")
      return { status: "cancelled", output: `${body}\n[cancelled; process group killed]` };
    const note =
      leftovers > 0 ? `\n[killed ${leftovers} process${leftovers === 1 ? "" : "es"} it left running]` : "";
    if (ending.code === null) {
      return { status: "error", output: `${body}\n[killed by signal ${ending.signal ?? "unknown"}]${note}` };
    }
    return {
      status: ending.code === 0 ? "ok" : "error",
      output: `${body}\n[exit code: ${ending.code}]${note}`,
    };
  },
});
