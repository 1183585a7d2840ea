import type { Logger } from "@longrun/protocol";
import { type DestinationStream, type LevelWithSilent, pino } from "pino";

const LEVEL_NAMES: Record<number, string> = {
  10: "TRACE",
  20: "DEBUG",
  30: "INFO",
  40: "WARN",
  50: "ERROR",
  60: "FATAL",
};

/** Options of one process's logger. */
export interface LoggerOptions {
  level: LevelWithSilent;
  /** Which process writes (`start`, `serve`, `worker`): bound to every line. */
  role: string;
  /** Where the lines go (tests capture them); default stdout, pretty when it is a terminal. */
  destination?: DestinationStream;
}

/**
 * The process's root logger: one JSON line per call (`level`, `time`, `msg`, the role, the pid and the
 * bound ids), or a short readable line when stdout is a terminal. Children bind job and request ids.
 */
export function createLogger(options: LoggerOptions): Logger {
  const destination =
    options.destination ??
    (process.stdout.isTTY ? prettyStdout() : pino.destination({ dest: 1, sync: true }));
  return pino(
    {
      level: options.level,
      base: { role: options.role, pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination,
  );
}

function prettyStdout(): DestinationStream {
  return { write: (line: string) => void process.stdout.write(prettyLine(line)) };
}

/** One JSON log line as `12:00:01.234 WARN  message key=value …` for a terminal. */
export function prettyLine(line: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    // Not ours to parse (never expected from pino): shown as it came.
    return line;
  }
  const { level, time, msg, pid: _pid, role: _role, ...fields } = record;
  const clock = typeof time === "string" ? time.slice(11, 23) : "";
  const name = (LEVEL_NAMES[level as number] ?? String(level)).padEnd(5);
  const rest = Object.entries(fields)
    .map(([key, value]) => `${key}=${typeof value === "string" ? value : JSON.stringify(value)}`)
    .join(" ");
  return `${clock} ${name} ${String(msg ?? "")}${rest ? ` ${rest}` : ""}\n`;
}
