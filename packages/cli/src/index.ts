export {
  buildRuntime,
  collectOps,
  createModelClient,
  type Infrastructure,
  openLog,
  type Runtime,
  startProcessWorker,
} from "./compose.ts";
export { commandHelp, mainHelp } from "./config/help.ts";
export {
  type Config,
  ConfigError,
  knownVariables,
  loadConfig,
  type ModelEndpoint,
} from "./config/load-config.ts";
export { type ConfigCommand, REQUIREMENTS, VARIABLES, type VariableName } from "./config/variables.ts";
export { connectDistributed, startDistributedWorker, startServe } from "./distributed.ts";
export { type EmbeddedInstance, startEmbedded } from "./embedded.ts";
export { createLogger } from "./logger.ts";
export { preflight } from "./preflight.ts";
export { StartupError } from "./startup-error.ts";
export { ensureToken } from "./token-file.ts";
export { startTracing } from "./tracing.ts";
