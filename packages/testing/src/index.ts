export { corpusDir, corpusDirOrSkip, corpusFiles, corpusSkipNotice } from "./corpus.ts";
export { createTempStore, type TempStore } from "./database.ts";
export {
  FIRST_USE_INSTALL_TIMEOUT_MS,
  type FirstUseFolder,
  installOnFirstUse,
} from "./install-on-first-use.ts";
export { createTestRedis, deleteKeysWithPrefix, type TestRedis } from "./redis.ts";
export { startTestSimModel, type TestSimModel } from "./sim-model.ts";
export {
  type SimTranscriptOptions,
  simTranscript,
  writeSimTranscripts,
  writeTranscript,
} from "./sim-transcript.ts";
export { EVENT_WAIT } from "./wait.ts";
export { createTempWorkspace, SAMPLE_PROJECT, type TempWorkspace } from "./workspace.ts";
