#!/usr/bin/env node
import { parseArgs } from "node:util";
import { type Config, ConfigError, loadConfig } from "./config.ts";
import { startDistributedWorker, startServe } from "./distributed.ts";
import { startEmbedded } from "./embedded.ts";
import { runReplayCommand } from "./replay/command.ts";
import { createTokenCommand } from "./token-command.ts";

const USAGE = `longrun — long-running agents inside a finite context window

Usage:
  longrun start                 embedded mode: API, dashboard, in-process workers, sim model
  longrun serve                 distributed API server (needs REDIS_URL)
  longrun worker                distributed worker (needs REDIS_URL)
  longrun replay <transcript.jsonl> --max-input-tokens N --out DIR
  longrun token create [--tenant T]
Configuration is read from the environment; see README.md.`;

/** Stops a long-running command on SIGINT/SIGTERM, gracefully. */
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

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === "help" || command === "--help") {
    console.log(USAGE);
    return command ? 0 : 1;
  }
  if (command === "replay") return runReplayCommand(rest);
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      return 2;
    }
    throw error;
  }
  switch (command) {
    case "start": {
      const instance = await startEmbedded(config);
      console.log(`longrun is running (embedded mode${instance.simModelUrl ? ", sim model" : ""})`);
      console.log(`  dashboard: ${instance.dashboardUrl}`);
      console.log(`  API:       ${instance.url}/v1   (Authorization: Bearer ${instance.token})`);
      console.log(`  token:     ${instance.token}`);
      onSignal(() => instance.close());
      return -1;
    }
    case "serve": {
      const server = await startServe(config);
      console.log(`longrun server listening on ${server.url}`);
      onSignal(() => server.close());
      return -1;
    }
    case "worker": {
      const worker = await startDistributedWorker(config);
      console.log(`longrun worker ${worker.worker.id} processing jobs`);
      onSignal(() => worker.close());
      return -1;
    }
    case "token": {
      const { values, positionals } = parseArgs({
        args: rest,
        options: { tenant: { type: "string" } },
        allowPositionals: true,
      });
      if (positionals[0] !== "create") {
        console.error("usage: longrun token create [--tenant T]");
        return 2;
      }
      console.log(await createTokenCommand(config, values.tenant ?? "default"));
      return 0;
    }
    default:
      console.error(`unknown command: ${command}\n\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
