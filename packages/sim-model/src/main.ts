import { parseArgs } from "node:util";
import { startSimModel } from "./server.ts";

// Standalone: npx tsx packages/sim-model/src/main.ts --port 4010 [--host 127.0.0.1] [--ctx 128000] [--steps 40]
const { values } = parseArgs({
  options: {
    port: { type: "string", default: "4010" },
    host: { type: "string", default: "127.0.0.1" },
    ctx: { type: "string" },
    steps: { type: "string" },
    reasoning: { type: "boolean", default: false },
  },
});

const server = await startSimModel({
  port: Number(values.port),
  host: values.host,
  reasoning: values.reasoning,
  ...(values.ctx ? { maxInputTokens: Number(values.ctx) } : {}),
  ...(values.steps ? { defaultSteps: Number(values.steps) } : {}),
});
console.log(`sim model listening on ${server.baseURL}`);

const stop = (): void => {
  server.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.once("SIGINT", stop);
process.once("SIGTERM", stop);
