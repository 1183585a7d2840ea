import { parseArgs } from "node:util";
import { createClient, type LongrunClient, LongrunError } from "@longrun/client";
import { commandHelp } from "../config/help.ts";
import { serverAccess } from "./server-access.ts";

/** Exit code 2 with the command's help: a usage problem. */
class UsageError extends Error {}

const COMMON = {
  url: { type: "string" },
  token: { type: "string" },
  json: { type: "boolean" },
} as const;

function integer(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new UsageError(`${flag} must be a positive integer`);
  return parsed;
}

function print(json: boolean | undefined, value: unknown, text: string): void {
  process.stdout.write(`${json ? JSON.stringify(value, null, 2) : text}\n`);
}

async function create(client: LongrunClient, args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      ...COMMON,
      title: { type: "string" },
      task: { type: "string" },
      model: { type: "string" },
      "max-input-tokens": { type: "string" },
      "sim-steps": { type: "string" },
    },
    allowPositionals: true,
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
  const maxInputTokens = integer(values["max-input-tokens"], "--max-input-tokens");
  const simSteps = integer(values["sim-steps"], "--sim-steps");
  const thread = await client.threads.create({
    ...(values.title ? { title: values.title } : {}),
    ...(values.task ? { task: values.task } : {}),
    ...(values.model ? { model: values.model } : {}),
    ...(maxInputTokens ? { maxInputTokens } : {}),
    ...(simSteps ? { simSteps } : {}),
  });
  const started = thread.runs.at(-1);
  print(
    values.json,
    thread,
    [
      `thread ${thread.id} (${thread.title})${started ? `, run ${started.id} ${started.status}` : ""}`,
      `  watch it:      npx longrun follow ${thread.id}`,
      `  send to it:    npx longrun threads send ${thread.id} "…"`,
    ].join("\n"),
  );
  return 0;
}

async function list(client: LongrunClient, args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { ...COMMON, limit: { type: "string" } } });
  const limit = integer(values.limit, "--limit");
  const threads = await client.threads.list(limit ? { limit } : {});
  const lines = threads.map(
    (thread) =>
      `${thread.id}  ${thread.status.padEnd(17)}  ${new Date(thread.updatedAt).toISOString()}  ${thread.title}`,
  );
  print(
    values.json,
    threads,
    lines.length > 0 ? lines.join("\n") : 'no threads yet: npx longrun threads create --task "…"',
  );
  return 0;
}

async function send(client: LongrunClient, args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { ...COMMON, wait: { type: "boolean" } },
    allowPositionals: true,
  });
  const [threadId, ...words] = positionals;
  if (!threadId || words.length === 0)
    throw new UsageError("usage: longrun threads send <thread> <message…>");
  const content = words.join(" ");
  if (!values.wait) {
    const result = await client.threads.sendMessage(threadId, { content });
    print(
      values.json,
      result,
      `run ${result.runId} ${result.queued ? `queued (position ${result.position})` : "started"}`,
    );
    return 0;
  }
  // Progress on stderr while waiting: a line every ten steps and one per compaction. Subscribed before the
  // message is sent, so the count starts at the run's first step.
  const progress = client.threads.stream(threadId, { types: ["context.measured", "compaction.completed"] });
  await progress.ready;
  const result = await client.threads.sendMessage(threadId, { content });
  process.stderr.write(
    `run ${result.runId} ${result.queued ? "queued" : "started"}; waiting for it to end…\n`,
  );
  // Progress lines are a courtesy: the run's end below is what the command reports.
  const printing = (async () => {
    let steps = 0;
    for await (const event of progress) {
      if (event.runId !== result.runId) continue;
      if (event.type === "compaction.completed") process.stderr.write(`  step ${steps}: compacted\n`);
      else if (++steps % 10 === 0) process.stderr.write(`  step ${steps}\n`);
    }
  })().catch(() => undefined);
  const run = await client.runs.wait(result.runId);
  progress.close();
  await printing;
  print(values.json, run, `run ${run.id} ${run.status}${run.error ? `: ${run.error.message}` : ""}`);
  return run.status === "completed" ? 0 : 1;
}

const SUBCOMMANDS: Record<string, (client: LongrunClient, args: string[]) => Promise<number>> = {
  create,
  list,
  send,
};

/** `longrun threads create|list|send`: the first steps with a server, through the SDK. */
export async function runThreadsCommand(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const [subcommand, ...rest] = args;
  const handler = subcommand ? SUBCOMMANDS[subcommand] : undefined;
  try {
    if (!handler)
      throw new UsageError(subcommand ? `unknown subcommand ${subcommand}` : "missing subcommand");
    const { values } = parseArgs({ args: rest, options: COMMON, strict: false, allowPositionals: true });
    const access = await serverAccess(
      {
        url: typeof values.url === "string" ? values.url : undefined,
        token: typeof values.token === "string" ? values.token : undefined,
      },
      env,
    );
    if (!access.token)
      throw new UsageError(
        "no token: pass --token, set LONGRUN_TOKEN, or run where `longrun start` keeps .longrun/token",
      );
    const client = createClient({ baseUrl: access.url, token: access.token });
    try {
      return await handler(client, rest);
    } finally {
      client.close();
    }
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      process.stderr.write(`${(error as Error).message}\n\n${commandHelp("threads")}\n`);
      return 2;
    }
    if (LongrunError.isInstance(error)) {
      process.stderr.write(
        `longrun threads: ${error.message}${error.requestId ? ` (request ${error.requestId})` : ""}\n`,
      );
      return 1;
    }
    throw error;
  }
}
