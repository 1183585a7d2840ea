import { invalidRequest, SIM_ERROR_CODES, type SimError } from "./errors.ts";

export const SIM_SCRIPTS = ["explorer", "team", "approval", "writer", "coder"] as const;
export type SimScript = (typeof SIM_SCRIPTS)[number];

/** Options carried in the model string: `sim:steps=40:script=explorer:reasoning=1:ctx=8000`. */
export interface SimModelOptions {
  /** Base model name (the part before the first `:`), always starting with "sim". */
  base: string;
  steps?: number;
  script?: SimScript;
  reasoning?: boolean;
  /** Context window override (max input tokens). */
  ctx?: number;
}

/** Build the model string that selects a scripted agent, e.g. `sim:steps=40:script=team:reasoning=1`. */
export function simModelName(
  options: Omit<Partial<SimModelOptions>, "base"> & { base?: string } = {},
): string {
  const parts = [options.base ?? "sim"];
  if (options.steps !== undefined) parts.push(`steps=${options.steps}`);
  if (options.script !== undefined) parts.push(`script=${options.script}`);
  if (options.reasoning !== undefined) parts.push(`reasoning=${options.reasoning ? 1 : 0}`);
  if (options.ctx !== undefined) parts.push(`ctx=${options.ctx}`);
  return parts.join(":");
}

function positiveInteger(value: string): number | undefined {
  if (!/^\d+$/.test(value)) return undefined;
  const parsed = Number(value);
  return parsed > 0 ? parsed : undefined;
}

/** Parse a model string; unknown models and malformed options are provider-style errors. */
export function parseModelName(model: string): SimModelOptions | SimError {
  const [base = "", ...rest] = model.split(":");
  if (!base.startsWith("sim")) {
    return {
      ...invalidRequest(SIM_ERROR_CODES.modelNotFound, `The model \`${model}\` does not exist.`, "model"),
      status: 404,
      type: "not_found_error",
    };
  }
  const options: SimModelOptions = { base };
  for (const part of rest) {
    const [key, value = ""] = part.split("=", 2);
    const bad = invalidRequest(SIM_ERROR_CODES.invalidRequest, `Invalid model option \`${part}\`.`, "model");
    if (key === "steps") {
      const steps = positiveInteger(value);
      if (steps === undefined) return bad;
      options.steps = steps;
    } else if (key === "ctx") {
      const ctx = positiveInteger(value);
      if (ctx === undefined) return bad;
      options.ctx = ctx;
    } else if (key === "reasoning") {
      if (value !== "0" && value !== "1") return bad;
      options.reasoning = value === "1";
    } else if (key === "script") {
      if (!(SIM_SCRIPTS as readonly string[]).includes(value)) return bad;
      options.script = value as SimScript;
    } else {
      return bad;
    }
  }
  return options;
}
