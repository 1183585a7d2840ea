import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createClient, LongrunApiError } from "@longrun/client";
import { commandHelp } from "../config/help.ts";
import { eventLine } from "./event-line.ts";

/** A running `longrun follow`: `done` settles with the exit code when following cannot go on. */
interface Following {
  done: Promise<number>;
  close(): void;
}

/** Exit code 2 with the command's help: a usage problem. */
class UsageError extends Error {}

async function operatorToken(env: NodeJS.ProcessEnv): Promise<string | null> {
  if (env.LONGRUN_TOKEN) return env.LONGRUN_TOKEN;
  // The token `longrun start` generated and keeps in the data dir (the same default folder).
  const file = join(env.LONGRUN_DATA_DIR || ".longrun", "token");
  return (await readFile(file, "utf8").catch(() => "")).trim() || null;
}

function refusal(error: unknown, url: string): string {
  if (LongrunApiError.isInstance(error)) {
    if (error.status === 401) return "the server refused the token (revoked or unknown)";
    return error.message;
  }
  return `cannot reach ${url}: ${error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error)}`;
}

/**
 * `longrun follow <thread>`: prints a thread's events as they happen, one line each, from the first
 * (or after `--since`), through the SDK. After a dropped connection or a server restart the SDK
 * resubscribes after the last seq printed, so no line is printed twice and none is skipped; connection
 * news goes to stderr, so stdout holds only the events.
 */
async function startFollow(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Following> {
  const { values, positionals } = parseArgs({
    args,
    options: { url: { type: "string" }, token: { type: "string" }, since: { type: "string" } },
    allowPositionals: true,
  });
  const [threadId, ...extra] = positionals;
  const since = Number(values.since ?? "0");
  if (!threadId || extra.length > 0 || !Number.isInteger(since))
    throw new UsageError(`usage: longrun follow <thread> [--url URL] [--token T] [--since SEQ]`);
  const url = (values.url ?? env.LONGRUN_URL ?? `http://127.0.0.1:${env.PORT || 8787}`).replace(/\/+$/, "");
  const token = values.token ?? (await operatorToken(env));
  if (!token)
    throw new UsageError(
      "no token: pass --token, set LONGRUN_TOKEN, or run where `longrun start` keeps .longrun/token",
    );

  const client = createClient({ baseUrl: url, token, reconnect: { initialDelayMs: 250, maxDelayMs: 2_000 } });
  const names = new Map<string, string>();
  try {
    const thread = await client.threads.get(threadId);
    for (const agent of thread.agents) names.set(agent.id, agent.name);
    process.stderr.write(`following thread ${thread.id} (${thread.title}) at ${url}\n`);
  } catch (error) {
    client.close();
    process.stderr.write(`longrun follow: ${refusal(error, url)}\n`);
    return { done: Promise.resolve(1), close: () => undefined };
  }

  let finish: (code: number) => void = () => undefined;
  const done = new Promise<number>((resolve) => {
    finish = resolve;
  });
  let interrupted = false;
  const subscription = client.subscribe(
    { threadId, since },
    {
      onEvent: (event) => {
        if (event.type === "agent.spawned" && event.agentId) names.set(event.agentId, event.data.name);
        const line = eventLine(event, names);
        if (line) process.stdout.write(`${line}\n`);
      },
      onStatus: (status, detail) => {
        if (status === "reconnecting") {
          interrupted = true;
          process.stderr.write(
            `connection lost (${detail?.reason ?? "closed"}); reconnecting in ${detail?.delayMs ?? 0} ms\n`,
          );
        } else if (status === "open" && interrupted) {
          interrupted = false;
          process.stderr.write(`reconnected: resuming after #${subscription.lastSeq(threadId)}\n`);
        } else if (status === "closed" && detail?.reason) {
          process.stderr.write(`longrun follow: ${detail.reason}\n`);
          finish(1);
        }
      },
      onResync: (info) =>
        process.stderr.write(
          `resync (${info.reason}): events after #${info.requestedSince} up to #${info.resumeAfter} are no longer kept; going on after #${info.resumeAfter}\n`,
        ),
      onError: (error) => process.stderr.write(`longrun follow: ${error.message}\n`),
    },
  );
  return {
    done,
    close: () => {
      client.close();
      finish(0);
    },
  };
}

/** Runs `startFollow` as a command: usage problems exit 2 with the command's help. */
export async function runFollowCommand(args: string[]): Promise<Following> {
  try {
    return await startFollow(args);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message}\n\n${commandHelp("follow")}\n`);
    return { done: Promise.resolve(2), close: () => undefined };
  }
}
