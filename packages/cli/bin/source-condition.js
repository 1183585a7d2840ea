// Module resolve hook: adds the "@longrun/source" condition, so packages whose exports map it resolve
// to their TypeScript source (the same thing `--conditions=@longrun/source` does).
const CONDITION = "@longrun/source";

/** @type {import("node:module").ResolveHook} */
export async function resolve(specifier, context, nextResolve) {
  const conditions = context.conditions.includes(CONDITION)
    ? context.conditions
    : [...context.conditions, CONDITION];
  return nextResolve(specifier, { ...context, conditions });
}
