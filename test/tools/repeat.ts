// `npm run test:repeat -- <project> <file> [runs]`: runs one test file N times in a row, each run a
// fresh vitest process (as CI would), and prints one line per run and a total, so a flake can be
// reproduced with one command. Example: npm run test:repeat -- store src/concurrency.test.ts 20
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const [project, file, runsText = "10"] = process.argv.slice(2);
const runs = Number(runsText);
if (!project || !file || !Number.isInteger(runs) || runs < 1) {
  console.error("usage: npm run test:repeat -- <vitest project> <test file> [runs (default 10)]");
  console.error("example: npm run test:repeat -- e2e e2e/embedded-fork.test.ts 20");
  process.exit(2);
}
const root = fileURLToPath(new URL("../..", import.meta.url));
let passed = 0;
const failures: number[] = [];
for (let run = 1; run <= runs; run++) {
  const started = Date.now();
  const result = spawnSync("npx", ["vitest", "run", "--project", project, file], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, FORCE_COLOR: "0" },
  });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (result.status === 0) {
    passed++;
    console.log(`run ${run}/${runs}: passed (${seconds} s)`);
  } else {
    failures.push(run);
    const output = `${result.stdout}\n${result.stderr}`;
    const reason =
      output
        .split("\n")
        .find((line) => /Error|expected|FAIL|×/.test(line))
        ?.trim() ?? "see output";
    console.log(`run ${run}/${runs}: FAILED (${seconds} s): ${reason}`);
    if (process.env.REPEAT_VERBOSE) console.log(output);
  }
}
console.log(
  `${project} ${file}: ${passed} of ${runs} passed${failures.length ? `; failed runs: ${failures.join(", ")}` : ""}`,
);
process.exit(failures.length > 0 ? 1 : 0);
