import { spawn } from "node:child_process";
import { StringDecoder } from "node:string_decoder";
import { z } from "zod";
import { BoundedBuffer } from "./bounded-buffer.ts";
import { defineTool, type ToolResult } from "./types.ts";

const DEFAULT_TIMEOUT_MS = 120_000;
const MAX_TIMEOUT_MS = 30 * 60_000;
/** After the group is killed, a grandchild that escaped the group may still hold the pipes open. */
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

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL"); // negative pid: the whole process group started by the shell
  } catch {
    // already gone
  }
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

/** run_command: a shell command in the workspace; timeout kills its process group; output bounded. */
export const runCommandTool = defineTool({
  name: "run_command",
  description:
    "Run a shell command (/bin/sh -c) with the workspace as the current folder. Returns combined " +
    "stdout/stderr (long output is cut in the middle) and the exit code. May require user approval.",
  schema: RunCommandArgs,
  run(args, { workspace, signal, outputLimit }) {
    const timeoutMs = args.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    return new Promise<ToolResult>((resolve) => {
      const output = new BoundedBuffer(Math.floor(outputLimit / 2));
      const child = spawn("/bin/sh", ["-c", args.command], {
        cwd: workspace.root,
        env: commandEnv(workspace.root),
        detached: true, // its own process group, so a timeout kills grandchildren too
        stdio: ["ignore", "pipe", "pipe"],
      });
      const decoders = { stdout: new StringDecoder("utf8"), stderr: new StringDecoder("utf8") };
      child.stdout.on("data", (chunk: Buffer) => output.append(decoders.stdout.write(chunk)));
      child.stderr.on("data", (chunk: Buffer) => output.append(decoders.stderr.write(chunk)));

      let stopped: "timeout" | "cancelled" | null = null;
      let settled = false;
      let graceTimer: NodeJS.Timeout | undefined;
      const stop = (reason: "timeout" | "cancelled") => {
        if (stopped) return;
        stopped = reason;
        killGroup(child.pid);
      };
      const timer = setTimeout(() => stop("timeout"), timeoutMs);
      const onAbort = () => stop("cancelled");
      signal?.addEventListener("abort", onAbort, { once: true });
      if (signal?.aborted) onAbort();

      const finish = (code: number | null, exitSignal: NodeJS.Signals | null, spawnError?: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clearTimeout(graceTimer);
        signal?.removeEventListener("abort", onAbort);
        output.append(decoders.stdout.end() + decoders.stderr.end());
        const text = output.text();
        const body = text === "" ? "(no output)" : text.replace(/\n$/, "");
        if (spawnError)
          resolve({ status: "error", output: `Could not start the command: ${spawnError.message}` });
        else if (stopped === "timeout") {
          resolve({
            status: "error",
            output: `${body}\n[timed out after ${timeoutMs} ms; process group killed]`,
          });
        } else if (stopped === "cancelled") {
          resolve({ status: "cancelled", output: `${body}\n[cancelled; process group killed]` });
        } else if (code === null) {
          resolve({ status: "error", output: `${body}\n[killed by signal ${exitSignal ?? "unknown"}]` });
        } else {
          resolve({ status: code === 0 ? "ok" : "error", output: `${body}\n[exit code: ${code}]` });
        }
      };
      child.on("error", (error) => finish(null, null, error));
      child.on("close", (code, exitSignal) => finish(code, exitSignal));
      child.on("exit", (code, exitSignal) => {
        graceTimer = setTimeout(() => {
          child.stdout.destroy();
          child.stderr.destroy();
          finish(code, exitSignal);
        }, CLOSE_GRACE_MS);
      });
    });
  },
});
