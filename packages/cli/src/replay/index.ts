export { REPLAY_USAGE, type ReplayCommandIO, runReplayCommand } from "./command.ts";
export { createProgressReporter, type ProgressStream } from "./progress.ts";
export {
  messageId,
  type ReplayOptions,
  type ReplayProgress,
  replayTranscript,
  requestFileName,
} from "./replay.ts";
export {
  type ReplayCompaction,
  type ReplayReport,
  type ReplayStep,
  type ReplayTotals,
  totalsOf,
} from "./report.ts";
export {
  endpointSummarizer,
  type ReplaySummarizer,
  type Summarizer,
  startSimSummarizer,
} from "./sim-summarizer.ts";
export { deriveToolSchemas } from "./tool-schemas.ts";
export {
  callPoints,
  parseTranscript,
  readTranscript,
  type Transcript,
  TranscriptError,
} from "./transcript.ts";
export { toMessageInput } from "./transcript-facts.ts";
