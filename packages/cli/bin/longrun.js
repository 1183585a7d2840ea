#!/usr/bin/env node
// The `longrun` command. The workspace runs TypeScript source: tsx compiles it on load, and the hook
// below resolves @longrun/* packages to their source (the "@longrun/source" export condition) rather
// than to a dist/ build that only the published SDK has.
import { register } from "node:module";
import { register as registerTsx } from "tsx/esm/api";

registerTsx();
register("./source-condition.js", import.meta.url);
await import("../src/main.ts");
