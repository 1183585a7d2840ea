import { readdir, readFile } from "node:fs/promises";

/** Environment variable that marks every process a command starts; its value is unique per call. */
export const COMMAND_MARKER = "LONGRUN_COMMAND_ID";

/** Sweeps stop after this many rounds even if a fork loop keeps producing marked processes. */
const MAX_ROUNDS = 50;

async function carriesMarker(pid: string, entry: string): Promise<boolean> {
  try {
    const environ = await readFile(`/proc/${pid}/environ`);
    // Entries are NUL-separated; a match must be a whole entry.
    for (let start = 0; start < environ.length; ) {
      let end = environ.indexOf(0, start);
      if (end === -1) end = environ.length;
      if (end - start === entry.length && environ.toString("utf8", start, end) === entry) return true;
      start = end + 1;
    }
    return false;
  } catch {
    return false; // gone, a zombie, or not ours to read
  }
}

/**
 * Kills (SIGKILL) every process whose environment carries `COMMAND_MARKER=<id>`, scanning /proc again
 * until a scan finds none: a process forked during one round is caught by the next. This reaches
 * what a process-group kill cannot — `setsid`, double forks, daemons — but not a process that
 * cleared or rewrote its environment. Returns how many processes were killed; 0 where there is no
 * /proc (not Linux), where only the process group is killed.
 */
export async function killMarked(id: string): Promise<number> {
  const entry = `${COMMAND_MARKER}=${id}`;
  // A killed process can still be seen (with its environment) until it has exited.
  const killed = new Set<string>();
  for (let round = 0; round < MAX_ROUNDS; round++) {
    let pids: string[];
    try {
      pids = (await readdir("/proc")).filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid);
    } catch {
      // No /proc to read (not Linux): nothing this sweep can find.
      return killed.size;
    }
    let found = 0;
    await Promise.all(
      pids.map(async (pid) => {
        if (!(await carriesMarker(pid, entry))) return;
        found++;
        try {
          process.kill(Number(pid), "SIGKILL");
          killed.add(pid);
        } catch {
          // exited between the read and the kill
        }
      }),
    );
    if (found === 0) return killed.size;
  }
  return killed.size;
}
