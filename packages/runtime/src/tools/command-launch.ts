import { spawn } from "node:child_process";
import type { Readable } from "node:stream";
import { pidNamespaceAvailable, spawnInNamespace } from "./pid-namespace.ts";
import { COMMAND_MARKER, killMarked } from "./process-sweep.ts";

/** How the command ended, before the sweep of what it left behind. */
export type Ending = { code: number | null; signal: NodeJS.Signals | null } | { error: Error };

/** A running shell command, however it is contained. */
export interface LaunchedCommand {
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** Every stream of the command closed (a survivor may hold them open: bound the wait). */
  readonly closed: Promise<void>;
  /** The command's own ending. */
  readonly ended: Promise<Ending>;
  /** Stops it now (timeout, cancel); `ended` then resolves. */
  stop(): void;
  /** Kills everything it started and left running; resolves with how many, once they are gone. */
  sweep(): Promise<number>;
}

/**
 * Starts `/bin/sh -c command`: in its own PID namespace where that works (nothing it starts can leave
 * it), else in its own process group. Either way processes carrying `marker` in their environment are
 * swept too — in a namespace that reaches only one that entered another namespace on purpose.
 */
export function launchCommand(
  command: string,
  options: { cwd: string; env: NodeJS.ProcessEnv; marker: string },
): LaunchedCommand {
  if (pidNamespaceAvailable()) {
    const namespaced = spawnInNamespace(command, options);
    const { child } = namespaced;
    const ended = new Promise<Ending>((resolve) => {
      child.once("error", (error) => resolve({ error }));
      void namespaced.status.then((code) => {
        if (code !== null) resolve({ code, signal: null });
      });
      // Without a status, PID 1 was killed (or unshare failed): its ending is the command's.
      child.once("exit", (code, signal) => {
        void namespaced.status.then((status) => {
          if (status === null) resolve({ code, signal });
        });
      });
    });
    return {
      stdout: child.stdout,
      stderr: child.stderr,
      closed: streamsClosed(child),
      ended,
      stop: () => void namespaced.kill(),
      async sweep() {
        const left = await namespaced.members();
        await namespaced.kill();
        return left + (await killMarked(options.marker));
      },
    };
  }
  const child = spawn("/bin/sh", ["-c", command], {
    cwd: options.cwd,
    env: { ...options.env, [COMMAND_MARKER]: options.marker },
    detached: true, // its own process group, so a timeout kills grandchildren too
    stdio: ["ignore", "pipe", "pipe"],
  });
  const ended = new Promise<Ending>((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
    child.once("error", (error) => resolve({ error }));
  });
  return {
    stdout: child.stdout,
    stderr: child.stderr,
    closed: streamsClosed(child),
    ended,
    stop: () => killGroup(child.pid),
    async sweep() {
      // The sweep first (it counts what it kills), then the group, for a member that cleared its environment.
      const left = child.pid === undefined ? 0 : await killMarked(options.marker);
      killGroup(child.pid);
      return left;
    },
  };
}

function streamsClosed(child: { once(event: "close", listener: () => void): unknown }): Promise<void> {
  return new Promise((resolve) => child.once("close", () => resolve()));
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL"); // negative pid: the whole process group started by the shell
  } catch {
    // already gone
  }
}
