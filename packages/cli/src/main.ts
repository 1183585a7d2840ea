import { commandHelp, mainHelp } from "./config/help.ts";
import { type Config, ConfigError, loadConfig } from "./config/load-config.ts";
import type { ConfigCommand } from "./config/variables.ts";
import { StartupError } from "./startup-error.ts";

// Commands load their modules when they run, so `--help` and a bad variable answer at once, without
// loading the server, the runtime and the queue.

/** Exit codes: 0 done, 1 failed at run time or a dependency is unreachable, 2 bad usage or configuration. */
const RUNNING = -1;

/** Stops a long-running command on SIGINT/SIGTERM, gracefully; a second signal exits at once. */
function onSignal(close: () => Promise<void>) {
  let closing = false;
  const handler = (signal: string) => {
    if (closing) process.exit(1);
    closing = true;
    console.log(`\n${signal}: shutting down gracefully…`);
    close().then(
      () => process.exit(0),
      (error) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", handler);
  process.on("SIGTERM", handler);
}

/**
 * Starts this process's tracing when an OTLP endpoint is configured (the SDK is loaded only then) and
 * says where its spans go; the returned shutdown exports what is still buffered.
 */
async function traceProcess(role: "start" | "serve" | "worker", settings: Config) {
  const { startTracing, tracesUrl } = await import("./tracing.ts");
  const tracing = await startTracing(role, settings);
  if (tracing.enabled) console.log(`  traces:    ${tracesUrl(settings)} (OTLP/HTTP)`);
  return tracing;
}

async function run(command: string, rest: string[], config: () => Config): Promise<number> {
  switch (command) {
    case "start": {
      const settings = config();
      const [{ openLog }, { preflight }, { startEmbedded }, tracing] = await Promise.all([
        import("./compose.ts"),
        import("./preflight.ts"),
        import("./embedded.ts"),
        traceProcess("start", settings),
      ]);
      // Checked (and the database migrated) before anything listens; startEmbedded reopens the file.
      await (await preflight(settings, "start", () => openLog(settings))).close();
      const instance = await startEmbedded(settings);
      // Before the ready lines: whoever reads them may stop us at once, and a stop must release the data dir.
      onSignal(() => instance.close().finally(tracing.shutdown));
      for (const notice of instance.notices) console.log(notice);
      console.log(`longrun is running (embedded mode${instance.simModelUrl ? ", sim model" : ""})`);
      console.log(`  dashboard: ${instance.dashboardUrl}`);
      console.log(`  API:       ${instance.url}/v1   (Authorization: Bearer ${instance.token})`);
      console.log(`  token:     ${instance.token}`);
      console.log("");
      console.log("Next, in another terminal (the SDK and `longrun` commands read these):");
      console.log(`  export LONGRUN_URL=${instance.url} LONGRUN_TOKEN=${instance.token}`);
      console.log(
        '  npx longrun threads create --max-input-tokens 8192 --task "Explore this project and report"',
      );
      console.log("  npx longrun follow <thread id it prints>");
      return RUNNING;
    }
    case "serve": {
      const settings = config();
      const tracing = await traceProcess("serve", settings);
      const { startServe } = await import("./distributed.ts");
      const server = await startServe(settings);
      onSignal(() => server.close().finally(tracing.shutdown));
      for (const notice of server.notices) console.log(notice);
      console.log(`longrun server listening on ${server.url}`);
      console.log(`  dashboard: ${server.url}/   (asks for a token)`);
      console.log(
        `  API:       ${server.url}/v1   (Authorization: Bearer <token>; mint one: npx longrun token create)`,
      );
      console.log(`  WebSocket: ${server.url.replace(/^http/, "ws")}/v1/ws`);
      console.log(`  OpenAPI:   ${server.url}/v1/openapi.json`);
      return RUNNING;
    }
    case "worker": {
      const settings = config();
      const tracing = await traceProcess("worker", settings);
      const { startDistributedWorker } = await import("./distributed.ts");
      const worker = await startDistributedWorker(settings);
      onSignal(() => worker.close().finally(tracing.shutdown));
      for (const notice of worker.notices) console.log(notice);
      console.log(`longrun worker ${worker.worker.id} processing jobs`);
      if (worker.metricsUrl) console.log(`  metrics: ${worker.metricsUrl}`);
      return RUNNING;
    }
    case "token": {
      const { runTokenCommand } = await import("./token-command.ts");
      return runTokenCommand(rest, config);
    }
    case "threads": {
      const { runThreadsCommand } = await import("./threads/command.ts");
      return runThreadsCommand(rest);
    }
    case "follow": {
      const { runFollowCommand } = await import("./follow/command.ts");
      const following = await runFollowCommand(rest);
      process.once("SIGINT", () => following.close());
      process.once("SIGTERM", () => following.close());
      return following.done;
    }
    case "sim": {
      const { startSimCommand } = await import("./sim-command.ts");
      const sim = await startSimCommand(rest);
      onSignal(() => sim.close());
      console.log(`sim model listening on ${sim.url} (OpenAI-compatible API at ${sim.baseURL})`);
      return RUNNING;
    }
    default:
      console.error(`unknown command: ${command}\n\n${mainHelp()}`);
      return 2;
  }
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === "help" || command === "--help" || command === "-h") {
    console.log(mainHelp());
    return command ? 0 : 2;
  }
  if (command === "replay") return (await import("./replay/command.ts")).runReplayCommand(rest);
  if (rest.includes("--help") || rest.includes("-h")) {
    const help = commandHelp(command);
    if (help) {
      console.log(help);
      return 0;
    }
  }
  try {
    const envCommand = (["start", "serve", "worker", "token"] as const).find((name) => name === command);
    return await run(command, rest, () => loadConfig(process.env, envCommand as ConfigCommand | undefined));
  } catch (error) {
    if (error instanceof ConfigError || error instanceof StartupError) {
      console.error(error.message);
      console.error(`\n\`longrun ${command} --help\` lists the variables and their defaults.`);
      return error instanceof ConfigError ? 2 : 1;
    }
    throw error;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== RUNNING) process.exit(code);
  },
  (error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
