import { resolve } from "node:path";
import { z } from "zod";
import { type ConfigCommand, REQUIREMENTS, VARIABLES, type VariableName } from "./variables.ts";

type Variables = typeof VARIABLES;
type Shape = { [Name in VariableName]: Variables[Name]["schema"] };

const EnvSchema = z.object(
  Object.fromEntries(Object.entries(VARIABLES).map(([name, entry]) => [name, entry.schema])) as Shape,
);

type EnvValues = z.output<typeof EnvSchema>;
type Fields = { [Name in VariableName as Variables[Name]["key"]]: EnvValues[Name] };

/** The model endpoint a process calls: a configured one, a standalone sim, or (embedded) its own sim. */
export type ModelEndpoint = { kind: "openai" | "sim"; baseURL: string; apiKey: string } | null;

/** Validated configuration of one process (DESIGN §2), derived from `VARIABLES`. */
export type Config = Omit<Fields, "databaseUrlSetting"> & {
  /** DATABASE_URL, or the libSQL file in the data dir. */
  databaseUrl: string;
  /** OPENAI_BASE_URL (+ key), else LONGRUN_SIM_URL; null when neither is set. */
  modelEndpoint: ModelEndpoint;
};

/** One message per problem, each naming its variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

/** Problems that involve two variables, or a variable and the command. */
function crossProblems(values: EnvValues, command: ConfigCommand | undefined): string[] {
  const problems: string[] = [];
  if (values.OPENAI_BASE_URL && !values.OPENAI_API_KEY)
    problems.push("OPENAI_API_KEY: required with OPENAI_BASE_URL");
  if (
    values.LONGRUN_UPSTREAM_API === "anthropic-messages" &&
    values.ANTHROPIC_API_KEY &&
    !values.OPENAI_BASE_URL &&
    !values.LONGRUN_MODEL
  )
    problems.push(
      "LONGRUN_MODEL: required with ANTHROPIC_API_KEY when OPENAI_BASE_URL is unset (the Claude model to run)",
    );
  if (values.OPENAI_BASE_URL && values.LONGRUN_SIM_URL)
    problems.push("LONGRUN_SIM_URL: set either OPENAI_BASE_URL or LONGRUN_SIM_URL, not both");
  if (!command) return problems;
  for (const requirement of REQUIREMENTS) {
    if (!requirement.commands.includes(command)) continue;
    if (requirement.anyOf.some((name) => values[name] !== undefined)) continue;
    const names = requirement.anyOf.join(" or ");
    problems.push(`${names}: required by \`longrun ${command}\` (${requirement.why})`);
  }
  return problems;
}

function modelEndpoint(values: EnvValues): ModelEndpoint {
  if (values.OPENAI_BASE_URL)
    return { kind: "openai", baseURL: values.OPENAI_BASE_URL, apiKey: values.OPENAI_API_KEY ?? "" };
  if (values.LONGRUN_SIM_URL)
    return { kind: "sim", baseURL: `${values.LONGRUN_SIM_URL}/v1`, apiKey: values.OPENAI_API_KEY ?? "sim" };
  return null;
}

/**
 * Reads and validates the environment. Every bad value is named with one clear message; with a
 * `command`, the variables that command requires are checked too.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, command?: ConfigCommand): Config {
  // An empty variable (`LONGRUN_TOKEN=` in a compose file or shell) means "not set", not a bad value.
  const set = Object.fromEntries(Object.entries(env).filter(([, value]) => value?.trim()));
  const parsed = EnvSchema.safeParse(set);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`));
  }
  const values = parsed.data;
  const problems = crossProblems(values, command);
  if (problems.length > 0) throw new ConfigError(problems);
  const fields = Object.fromEntries(
    Object.entries(VARIABLES).map(([name, entry]) => [entry.key, values[name as VariableName]]),
  ) as Fields;
  const { databaseUrlSetting, ...rest } = fields;
  return {
    ...rest,
    databaseUrl: databaseUrlSetting ?? `file:${resolve(values.LONGRUN_DATA_DIR, "longrun.db")}`,
    modelEndpoint: modelEndpoint(values),
  };
}

/** The names of every variable longrun reads. */
export function knownVariables(): VariableName[] {
  return Object.keys(VARIABLES) as VariableName[];
}
