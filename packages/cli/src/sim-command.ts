import { parseArgs } from "node:util";
import { startSimModel } from "@longrun/sim-model";

/** `longrun sim`: the sim model as a server of its own, for LONGRUN_SIM_URL (compose, k8s, tests). */
export async function startSimCommand(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: "string", default: "4010" },
      host: { type: "string", default: "127.0.0.1" },
      ctx: { type: "string" },
      steps: { type: "string" },
      reasoning: { type: "boolean", default: false },
    },
    strict: true,
  });
  const number = (flag: string, value: string): number => {
    if (!/^\d+$/.test(value)) throw new Error(`--${flag} must be a whole number, got "${value}"`);
    return Number(value);
  };
  // Bounded log without bodies: a long-lived sim serving a deployment must not grow without end.
  return startSimModel({
    port: number("port", values.port),
    host: values.host,
    reasoning: values.reasoning,
    logBodies: false,
    ...(values.ctx ? { maxInputTokens: number("ctx", values.ctx) } : {}),
    ...(values.steps ? { defaultSteps: number("steps", values.steps) } : {}),
  });
}
