import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type FirstUseFolder, installOnFirstUse } from "@longrun/testing";

/**
 * `tsx test/tools/biome.ts <biome arguments>`: Biome, installed on first use. Its native binary is
 * ~100 MB — a fifth of what the repository's `npm install` would otherwise be — and only linting and
 * formatting need it, so it lives in `biome/` with its own lockfile (npm picks the one binary that
 * fits this platform and libc) and `npm run lint` / `npm run format` install it there the first time.
 */
const BIOME: FirstUseFolder = {
  dir: fileURLToPath(new URL("biome/", import.meta.url)),
  what: "Biome (~100 MB, its native binary)",
  label: "[biome]",
};

await installOnFirstUse(BIOME);
// Biome's own launcher, which finds the platform package beside it.
const launcher = join(BIOME.dir, "node_modules", "@biomejs", "biome", "bin", "biome");
const child = spawn(process.execPath, [launcher, ...process.argv.slice(2)], { stdio: "inherit" });
child.on("close", (code, signal) => {
  process.exitCode = code ?? (signal === null ? 1 : 128);
});
