import type { z } from "zod";
import { type ConfigCommand, REQUIREMENTS, VARIABLES, type Variable } from "./variables.ts";

/** A command as `--help` shows it. */
export interface CommandHelp {
  name: string;
  usage: string;
  summary: string;
  flags: ReadonlyArray<{ flag: string; description: string }>;
  /** The command whose environment it reads, if any. */
  env?: ConfigCommand;
}

export const COMMANDS: readonly CommandHelp[] = [
  {
    name: "start",
    usage: "longrun start",
    summary: "embedded mode: API, dashboard, in-process queue and workers, built-in sim model",
    flags: [],
    env: "start",
  },
  {
    name: "serve",
    usage: "longrun serve",
    summary: "distributed mode: the API, WebSocket gateway and dashboard; jobs run on `longrun worker`",
    flags: [],
    env: "serve",
  },
  {
    name: "worker",
    usage: "longrun worker",
    summary: "distributed mode: runs agent steps and compactions from the Redis queues",
    flags: [],
    env: "worker",
  },
  {
    name: "token",
    usage: "longrun token create [--tenant T] [--admin] | token list | token revoke <id|id prefix|token>",
    summary:
      "bearer tokens in the database: mint one (printed once), list every key, revoke one (refused by every server at once)",
    flags: [
      { flag: "--tenant T", description: "create: tenant the token belongs to (default: default)" },
      {
        flag: "--admin",
        description: "create: the token may list and revoke keys over the API (/v1/tokens)",
      },
    ],
    env: "token",
  },
  {
    name: "threads",
    usage:
      "longrun threads create [--task TEXT] [--title T] [--max-input-tokens N] [--sim-steps N] [--model M] | threads list [--limit N] | threads send <thread> <message…> [--wait]",
    summary: "creates, lists and messages threads on a running server (through the SDK)",
    flags: [
      {
        flag: "--url URL",
        description: "the server (default: LONGRUN_URL, else http://127.0.0.1:$PORT, PORT default 8787)",
      },
      {
        flag: "--token T",
        description: "bearer token (default: LONGRUN_TOKEN, else the token in $LONGRUN_DATA_DIR/token)",
      },
      { flag: "--json", description: "print the API's answer as JSON" },
      {
        flag: "--wait",
        description: "send: wait for the run to end, with progress on stderr; exit 1 unless it completed",
      },
    ],
  },
  {
    name: "follow",
    usage: "longrun follow <thread> [--url URL] [--token T] [--since SEQ]",
    summary:
      "prints a thread's events live (steps, tool calls, compactions, approvals), resuming after a lost connection",
    flags: [
      {
        flag: "--url URL",
        description: "the server (default: LONGRUN_URL, else http://127.0.0.1:$PORT, PORT default 8787)",
      },
      {
        flag: "--token T",
        description: "bearer token (default: LONGRUN_TOKEN, else the token in $LONGRUN_DATA_DIR/token)",
      },
      { flag: "--since SEQ", description: "print events after this seq (default 0: from the first)" },
    ],
  },
  {
    name: "replay",
    usage: "longrun replay <transcript.jsonl> --max-input-tokens N --out DIR",
    summary: "walks a transcript through the context pipeline offline; `longrun replay --help` for flags",
    flags: [],
  },
  {
    name: "sim",
    usage: "longrun sim [--port 4010] [--host 127.0.0.1] [--ctx N] [--steps N] [--reasoning]",
    summary: "the simulated OpenAI-compatible model as its own server (for LONGRUN_SIM_URL)",
    flags: [
      { flag: "--port N", description: "port to listen on (default 4010; 0 picks a free one)" },
      { flag: "--host H", description: "interface to listen on (default 127.0.0.1)" },
      { flag: "--ctx N", description: "context window in tokens (default 128000)" },
      { flag: "--steps N", description: "steps the scripted agent works before it reports (default 40)" },
      { flag: "--reasoning", description: "emit reasoning tokens and encrypted reasoning state" },
    ],
  },
];

/** The default as `--help` shows it: the entry's text, else what the schema yields for "unset". */
export function defaultText(entry: Variable): string {
  if (entry.defaultText) return entry.defaultText;
  const parsed = (entry.schema as z.ZodType).safeParse(undefined);
  if (!parsed.success || parsed.data === undefined) return "";
  return Array.isArray(parsed.data) ? parsed.data.join(",") || "none" : String(parsed.data);
}

function table(rows: string[][], indent = "  "): string {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? [];
  return rows
    .map((row) => (indent + row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join("  ")).trimEnd())
    .join("\n");
}

/** The environment section of a command's help: every variable it reads, required ones first. */
export function environmentHelp(command: ConfigCommand): string {
  const requirements = REQUIREMENTS.filter((requirement) => requirement.commands.includes(command));
  const rows = Object.entries(VARIABLES)
    .filter(([, entry]) => entry.commands.includes(command))
    .map(([name, entry]) => {
      const required = requirements.find((requirement) => requirement.anyOf.some((one) => one === name));
      const shown = required
        ? required.anyOf.length === 1
          ? "required"
          : `required: this or ${required.anyOf.filter((one) => one !== name).join(", ")}`
        : defaultText(entry);
      return [name, entry.description, shown ? `[${shown}]` : ""];
    });
  return `Environment (validated at start; an empty value counts as unset):\n${table(
    rows.map(([name, description, shown]) => [name ?? "", `${description} ${shown}`.trim()]),
  )}`;
}

/** `longrun --help`. */
export function mainHelp(): string {
  return [
    "longrun — long-running tool-using agents inside a finite context window",
    "",
    "Usage:",
    ...COMMANDS.map((command) => `  ${command.usage}\n      ${command.summary}`),
    "",
    "`longrun <command> --help` lists a command's flags and environment variables.",
  ].join("\n");
}

/** `longrun <command> --help`. */
export function commandHelp(name: string): string | null {
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (!command) return null;
  const parts = [`Usage: ${command.usage}`, "", command.summary];
  if (command.flags.length > 0) {
    parts.push("", "Flags:", table(command.flags.map((flag) => [flag.flag, flag.description])));
  }
  if (command.env) parts.push("", environmentHelp(command.env));
  return parts.join("\n");
}
