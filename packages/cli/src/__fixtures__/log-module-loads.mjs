// Registered with `node --import`: prints every file module the process loads, one line each on stderr.
import { register } from "node:module";

register(
  `data:text/javascript,${encodeURIComponent(
    'export async function load(url, context, next) { if (url.startsWith("file:")) process.stderr.write("LOADED " + url + "\\n"); return next(url, context); }',
  )}`,
);
