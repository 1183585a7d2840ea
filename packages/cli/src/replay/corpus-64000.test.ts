import { describeCorpusWindow } from "./corpus.test-helper.ts";

// Every corpus transcript at a 64000-token window. Requests here are up to ~200 KB each, so to keep
// the suite within budget a deterministic sample is POSTed to the strict sim: every third call point
// plus every call point that compacted. The content checks (I3, I5) still run on every request.
describeCorpusWindow(64000, (step, ordinal) => ordinal % 3 === 0 || step.compaction !== undefined);
