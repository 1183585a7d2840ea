import { describeCorpusWindow } from "./corpus.test-helper.ts";

// Every corpus transcript at a 8000-token window; every written request is POSTed to the strict sim.
describeCorpusWindow(8000);
