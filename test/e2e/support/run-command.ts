import { spawn } from "node:child_process";
import { join } from "node:path";
import { REPO_ROOT } from "./distributed-cluster.ts";

/** What a finished command printed and how it exited. */
export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs node with `args` from the repository root to completion; `input` is written to its stdin. */
export function runNode(args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<CommandResult> {
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env,
    stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  if (input !== undefined) child.stdin?.end(input);
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs `longrun <args>` (node on the bin, as the cluster does) to completion. */
export function runLongrun(args: string[], env: NodeJS.ProcessEnv): Promise<CommandResult> {
  return runNode([join(REPO_ROOT, "packages/cli/bin/longrun.js"), ...args], env);
}
