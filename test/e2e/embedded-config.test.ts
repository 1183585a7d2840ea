import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The `longrun` command as a user runs it after `npm install`: `npx longrun …` from the repository root.
// The schema and messages themselves are unit-tested in packages/cli/src/config.
const REPO = fileURLToPath(new URL("../..", import.meta.url));

function longrun(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync("npx", ["--no-install", "longrun", ...args], {
    cwd: REPO,
    env: { ...process.env, ...env },
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("the longrun command (npx longrun, as after npm install)", () => {
  it("`--help` lists every command", () => {
    const result = longrun(["--help"]);
    expect(result.status).toBe(0);
    for (const command of ["start", "serve", "worker", "token create", "replay", "sim"])
      expect(result.stdout).toContain(`longrun ${command}`);
  });

  it("`serve --help` lists its environment, required variables marked", () => {
    const result = longrun(["serve", "--help"]);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/REDIS_URL\s+.*\[required\]/);
    expect(result.stdout).toMatch(/LONGRUN_SIM_URL\s+.*\[required: this or OPENAI_BASE_URL\]/);
    expect(result.stdout).toMatch(/LONGRUN_TOKEN\s+a fixed bearer token \(16\+ characters\)/);
  });

  it("`start` refuses bad values with one line each and exit code 2", () => {
    const result = longrun(["start"], { PORT: "eighty", LONGRUN_MAX_INPUT_TOKENS: "12" });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("invalid configuration:");
    expect(result.stderr).toContain('  - PORT: must be a whole number from 0 to 65535, got "eighty"');
    expect(result.stderr).toContain(
      '  - LONGRUN_MAX_INPUT_TOKENS: must be a whole number of at least 1024, got "12"',
    );
    expect(result.stderr).toContain("`longrun start --help` lists the variables and their defaults.");
  });

  it("`serve` without Redis or a model endpoint says what is missing", () => {
    const result = longrun(["serve"], { REDIS_URL: "", OPENAI_BASE_URL: "", LONGRUN_SIM_URL: "" });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("  - REDIS_URL: required by `longrun serve`");
    expect(result.stderr).toContain("  - OPENAI_BASE_URL or LONGRUN_SIM_URL: required by `longrun serve`");
  });
});
