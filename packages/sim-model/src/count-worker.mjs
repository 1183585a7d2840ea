// Entry of the sim's token-counting worker thread: it loads the TypeScript worker through tsx, which a
// worker thread does not inherit from the process that started it (Node 20).
import { register } from "tsx/esm/api";

register();
await import("./count-worker.ts");
