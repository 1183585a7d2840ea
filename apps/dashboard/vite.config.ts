import react from "@vitejs/plugin-react";
import { defaultClientConditions, defineConfig, loadEnv } from "vite";

// The server serves dist/ at "/"; under `vite dev` the API is proxied to a local server
// (LONGRUN_API, default http://127.0.0.1:8787).
export default defineConfig(({ mode }) => {
  const apiTarget = loadEnv(mode, ".", "LONGRUN_").LONGRUN_API ?? "http://127.0.0.1:8787";
  return {
    base: "/",
    plugins: [react()],
    // Workspace packages resolve to their TypeScript source (see vitest.source-conditions.ts).
    resolve: { conditions: ["@longrun/source", ...defaultClientConditions] },
    build: { outDir: "dist", emptyOutDir: true, sourcemap: false, target: "es2022" },
    server: {
      proxy: {
        "/v1": { target: apiTarget, ws: true, changeOrigin: true },
        "/healthz": { target: apiTarget },
      },
    },
  };
});
