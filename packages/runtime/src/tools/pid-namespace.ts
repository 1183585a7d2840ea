import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from "node:child_process";
import { readdir, readFile, readlink } from "node:fs/promises";
import { setTimeout as delay } from "node:timers/promises";
import { COMMAND_MARKER } from "./process-sweep.ts";

/**
 * PID 1 of the command's namespace: runs the command (stdin closed, fd 3 not passed on, the marker
 * `$2` in its environment only), writes its exit status to fd 3, then waits for stdin to close. The
 * runner counts what the command left, then kills the namespace; if the runner dies instead, stdin
 * reaches EOF and PID 1 exits. When PID 1 exits, the kernel kills every process in the namespace —
 * whatever session, group or environment it made for itself.
 */
const INIT_SCRIPT = `${COMMAND_MARKER}="$2" /bin/sh -c "$1" </dev/null 3>&- & wait $!; echo $? >&3; exec 3>&-; read -r _`;

/** After the kill, members still seen dying are awaited this long at most (bounded, polled). */
const TEARDOWN_POLL_MS = 5;
const TEARDOWN_LIMIT_MS = 5_000;

let available: boolean | undefined;

/**
 * True when `unshare --pid --fork --kill-child` works here (Linux, and root or user namespaces).
 * Probed once; when it does not, says so once on stderr, and run_command falls back to killing the
 * process group and the processes carrying its marker.
 */
export function pidNamespaceAvailable(): boolean {
  if (available !== undefined) return available;
  const probe = spawnSync("unshare", ["--pid", "--fork", "--kill-child", "/bin/true"], {
    stdio: "ignore",
    timeout: 5_000,
  });
  available = probe.status === 0;
  if (!available) {
    const why = probe.error ? probe.error.message : `exit ${probe.status ?? probe.signal}`;
    console.warn(
      `[tools] run_command: no PID namespace here (unshare --pid: ${why}); commands are stopped by ` +
        "process group and environment marker, which a command that leaves its session and clears " +
        "its environment escapes",
    );
  }
  return available;
}

/** A command running as the only child of PID 1 in a new PID namespace. */
export interface NamespacedCommand {
  readonly child: ChildProcessWithoutNullStreams;
  /** The command's exit status (a signal is 128 + its number); null when PID 1 ended without one. */
  readonly status: Promise<number | null>;
  /** Processes in the namespace besides PID 1 and the command's own shell once it has exited. */
  members(): Promise<number>;
  /** Kills PID 1 (so the kernel kills every member) and resolves once no member is left. */
  kill(): Promise<void>;
}

/**
 * Starts `/bin/sh -c command` in its own PID namespace (check `pidNamespaceAvailable` first), with
 * `COMMAND_MARKER=marker` in the command's environment (not in unshare's or PID 1's, so a marker
 * sweep finds only what the command started).
 */
export function spawnInNamespace(
  command: string,
  options: { cwd: string; env: NodeJS.ProcessEnv; marker: string },
): NamespacedCommand {
  const child = spawn(
    "unshare",
    [
      "--pid",
      "--fork",
      "--kill-child",
      "/bin/sh",
      "-c",
      INIT_SCRIPT,
      "longrun-init",
      command,
      options.marker,
    ],
    {
      cwd: options.cwd,
      env: options.env,
      detached: true, // unshare and PID 1 form their own group: one kill reaches both
      stdio: ["pipe", "pipe", "pipe", "pipe"],
    },
  ) as unknown as ChildProcessWithoutNullStreams;
  const statusPipe = child.stdio[3] as NodeJS.ReadableStream;
  const status = new Promise<number | null>((resolve) => {
    // unshare holds fd 3 open too, so the line — not the end of the pipe — is the signal.
    let text = "";
    statusPipe.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
      const line = /^(\d+)\n/.exec(text);
      if (line) resolve(Number(line[1]));
    });
    statusPipe.once("close", () => resolve(null));
    statusPipe.once("error", () => resolve(null));
  });
  // Read while unshare lives: after it is gone the namespace can no longer be named.
  const namespace = async (): Promise<string | null> => {
    if (child.pid === undefined) return null;
    const [inner, own] = await Promise.all([
      // unshare already gone: no namespace to name (the caller then kills by process group).
      readlink(`/proc/${child.pid}/ns/pid_for_children`).catch(() => null),
      readlink("/proc/self/ns/pid"),
    ]);
    // Before unshare has called unshare(2), its children would be ours: no namespace yet.
    return inner === own ? null : inner;
  };
  let known: string | null = null;
  const name = async () => {
    known ??= await namespace();
    return known;
  };
  return {
    child,
    status,
    async members() {
      const id = await name();
      // PID 1 is always there; the command's shell has exited when this is asked.
      return id === null ? 0 : Math.max(0, (await pidsIn(id)).length - 1);
    },
    async kill() {
      const id = await name();
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
      child.stdin.destroy();
      if (id === null) return;
      for (const started = Date.now(); Date.now() - started < TEARDOWN_LIMIT_MS; ) {
        if ((await pidsIn(id)).length === 0) return;
        await delay(TEARDOWN_POLL_MS);
      }
    },
  };
}

/** Live processes (zombies are dead) whose PID namespace is `id` (`pid:[inode]`). */
async function pidsIn(id: string): Promise<number[]> {
  const names = await readdir("/proc").catch(() => [] as string[]);
  const found: number[] = [];
  await Promise.all(
    names.map(async (name) => {
      if (!/^\d+$/.test(name)) return;
      // Processes that exit while /proc is read are simply not found.
      if ((await readlink(`/proc/${name}/ns/pid`).catch(() => null)) !== id) return;
      const stat = await readFile(`/proc/${name}/stat`, "utf8").catch(() => "");
      if (/^\d+ \(.*\) [^ZX]/s.test(stat)) found.push(Number(name));
    }),
  );
  return found;
}
