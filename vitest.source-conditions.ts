import { defaultClientConditions, defaultServerConditions } from "vite";

/**
 * Resolve workspace packages to their TypeScript source: @longrun/protocol and @longrun/client export
 * a dist/ build to the outside world and their source under the "@longrun/source" condition, which
 * every tool in the workspace sets (tsconfig customConditions, NODE_OPTIONS from .npmrc for tsx, this
 * for vite). Spread into each vitest project's config.
 */
export const sourceConditions = {
  resolve: { conditions: ["@longrun/source", ...defaultClientConditions] },
  // Not "module": Node never reads it, and @opentelemetry/api's "module" build has extensionless
  // imports that Node cannot load; tests resolve dependencies as the processes they test do.
  ssr: {
    resolve: {
      conditions: ["@longrun/source", ...defaultServerConditions.filter((name) => name !== "module")],
    },
  },
};
