export {
  buildRuntime,
  collectOps,
  createModelClient,
  type Infrastructure,
  openLog,
  type Runtime,
} from "./compose.ts";
export { type Config, ConfigError, loadConfig } from "./config.ts";
export { connectDistributed, startDistributedWorker, startServe } from "./distributed.ts";
export { type EmbeddedInstance, startEmbedded } from "./embedded.ts";
export { ensureToken } from "./token-file.ts";
