import { readFileSync } from "node:fs";
import { type ConfigCommand, ConfigError, knownVariables, loadConfig } from "@longrun/cli";
import { parse } from "yaml";

/** The parts of a compose service these tests read. */
export interface ComposeService {
  image?: string;
  build?: { context?: string; dockerfile?: string };
  command?: string[];
  environment?: Record<string, string | number | null>;
  expose?: Array<string | number>;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, unknown> | string[];
  deploy?: { replicas?: number };
  stop_grace_period?: string;
}

export interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

/**
 * Compose's variable substitution: `${VAR}`, `${VAR:-default}`, `${VAR-default}`, `${VAR:?message}`,
 * `${VAR?message}` and `$$`, applied to the file's text with `env` as the shell.
 */
export function interpolate(text: string, env: Record<string, string>): string {
  return text.replace(
    /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])([^}]*))?\}/g,
    (match, name, colon, kind, rest) => {
      if (match === "$$") return "$";
      const value = env[name as string];
      const missing = value === undefined || (colon === ":" && value === "");
      if (kind === "?" && missing) throw new Error(`compose: ${name} is required: ${rest}`);
      if (kind === "-" && missing) return rest as string;
      return value ?? "";
    },
  );
}

/** Reads a compose file as `docker compose config` would see it for `env` (anchors and merges resolved). */
export function readComposeFile(path: string, env: Record<string, string>): ComposeFile {
  return parse(interpolate(readFileSync(path, "utf8"), env), { merge: true }) as ComposeFile;
}

/** The final stage of a Dockerfile: what a container of the image starts with. */
export interface ImageDefaults {
  workdir: string;
  env: Record<string, string>;
  entrypoint: string[];
  cmd: string[];
  user?: string;
  healthcheck?: string;
}

/** Reads WORKDIR, ENV, USER, HEALTHCHECK, ENTRYPOINT and CMD of a Dockerfile's last stage. */
export function readDockerfile(path: string): ImageDefaults {
  const lines = readFileSync(path, "utf8")
    .replace(/\\\n\s*/g, " ")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("#"));
  const lastFrom = lines.findLastIndex((line) => /^FROM\s/i.test(line));
  const image: ImageDefaults = { workdir: "/", env: {}, entrypoint: [], cmd: [] };
  for (const line of lines.slice(lastFrom)) {
    const [instruction = "", ...restParts] = line.split(/\s+/);
    const rest = restParts.join(" ");
    switch (instruction.toUpperCase()) {
      case "WORKDIR":
        image.workdir = rest;
        break;
      case "ENV":
        for (const [, name, value] of rest.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|\S+)/g))
          image.env[name as string] = (value as string).replace(/^"|"$/g, "");
        break;
      case "USER":
        image.user = rest;
        break;
      case "HEALTHCHECK":
        image.healthcheck = rest;
        break;
      case "ENTRYPOINT":
        image.entrypoint = JSON.parse(rest) as string[];
        break;
      case "CMD":
        image.cmd = JSON.parse(rest) as string[];
        break;
    }
  }
  return image;
}

/** Compose services built from the longrun image. */
export function longrunServices(compose: ComposeFile): Array<[string, ComposeService]> {
  return Object.entries(compose.services).filter(
    ([, service]) => service.build?.dockerfile === "infra/Dockerfile",
  );
}

/** A service's environment as strings, the image's ENV under it (compose's precedence). */
export function serviceEnvironment(service: ComposeService, image: ImageDefaults): Record<string, string> {
  const own = Object.fromEntries(
    Object.entries(service.environment ?? {}).map(([name, value]) => [
      name,
      value == null ? "" : String(value),
    ]),
  );
  return { ...image.env, ...own };
}

const CONFIG_COMMANDS: readonly ConfigCommand[] = ["start", "serve", "worker", "token"];

/**
 * What is wrong with the longrun services of a compose file, judged by the CLI's own schema: a
 * variable it does not know, a value it refuses, a variable the command requires but is missing, or
 * a command the CLI does not have.
 */
export function composeProblems(compose: ComposeFile, image: ImageDefaults): string[] {
  const known = new Set<string>(knownVariables());
  const problems: string[] = [];
  for (const [name, service] of longrunServices(compose)) {
    const command = service.command ?? image.cmd;
    const verb = command[0] ?? "";
    if (!["start", "serve", "worker", "sim", "token", "replay"].includes(verb))
      problems.push(`${name}: longrun has no command "${verb}"`);
    const env = serviceEnvironment(service, image);
    for (const variable of Object.keys(env)) {
      if (!known.has(variable)) problems.push(`${name}: ${variable} is not a variable longrun reads`);
    }
    if (!CONFIG_COMMANDS.includes(verb as ConfigCommand)) continue;
    try {
      loadConfig(env, verb as ConfigCommand);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      for (const problem of error.problems) problems.push(`${name}: ${problem}`);
    }
  }
  return problems;
}

/** "40s", "1m30s", "500ms" → milliseconds. */
export function durationMs(text: string): number {
  let total = 0;
  for (const [, amount, unit] of text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) {
    total += Number(amount) * { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[unit as "ms" | "s" | "m" | "h"];
  }
  return total;
}
