import { execFile } from "node:child_process";
import { copyFile, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { restEndpoints } from "@longrun/client";
import { FIRST_USE_INSTALL_TIMEOUT_MS, installOnFirstUse } from "@longrun/testing";
import openapiTS, { astToString } from "openapi-typescript";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "./app.ts";
import { createFailureLog } from "./failure-log.ts";
import { buildOpenApiDocument } from "./openapi-document.ts";
import type { ServerDeps } from "./server-deps.ts";

const LINT_DIR = fileURLToPath(new URL("../openapi-lint/", import.meta.url));
/** Redocly's CLI is not part of the repository's `npm install`: this test installs it on first use. */
const REDOCLY_DIR = fileURLToPath(new URL("../tools/redocly/", import.meta.url));
const REDOCLY = join(REDOCLY_DIR, "node_modules", "@redocly", "cli", "bin", "cli.js");

// Building the route table touches no dependency: handlers use them only when a request comes.
const app = createApp({} as ServerDeps, createFailureLog());
const document = buildOpenApiDocument(app) as {
  paths: Record<string, Record<string, { operationId?: string }>>;
};
let dir: string;

beforeAll(
  () => installOnFirstUse({ dir: REDOCLY_DIR, what: "Redocly's CLI (~15 MB)", label: "[redocly]" }),
  FIRST_USE_INSTALL_TIMEOUT_MS,
);
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "longrun-openapi-"));
  await writeFile(join(dir, "openapi.json"), JSON.stringify(document, null, 2));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

interface RegisteredRoute {
  method: string;
  path: string;
  operationId?: string;
  request?: {
    params?: unknown;
    query?: unknown;
    body?: { content: Record<string, { schema: unknown }> };
  };
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
}

function registeredRoutes(): RegisteredRoute[] {
  return app.openAPIRegistry.definitions.flatMap((definition) =>
    definition.type === "route" ? [definition.route as unknown as RegisteredRoute] : [],
  );
}

describe("the OpenAPI document", () => {
  it("passes Redocly's recommended rules with only the justified exceptions", async () => {
    await copyFile(join(LINT_DIR, "redocly.yaml"), join(dir, "redocly.yaml"));
    await copyFile(join(LINT_DIR, ".redocly.lint-ignore.yaml"), join(dir, ".redocly.lint-ignore.yaml"));
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [REDOCLY, "lint", "openapi.json", "--format", "json"],
      {
        cwd: dir,
        env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
        maxBuffer: 16 * 1024 * 1024,
      },
    ).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`redocly lint failed:\n${error.stdout ?? ""}\n${error.stderr ?? ""}`);
    });
    const report = JSON.parse(stdout) as {
      totals: { errors: number; warnings: number; ignored: number };
      problems: Array<{ ruleId: string; message: string }>;
    };
    expect(report.problems.map((problem) => `${problem.ruleId}: ${problem.message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    // Each ignore entry still matches a problem: a fixed one must leave the ignore file too.
    expect(report.totals.ignored).toBe(6);
  });

  it("generates TypeScript with openapi-typescript that compiles under strict settings", async () => {
    const source = astToString(await openapiTS(document as never));
    const file = join(dir, "api.d.ts");
    await writeFile(file, source);
    expect(source).toContain('"/v1/threads/{id}/events"');
    const program = ts.createProgram([file], {
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      target: ts.ScriptTarget.ES2022,
      types: [],
    });
    const diagnostics = ts
      .getPreEmitDiagnostics(program)
      .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
    expect(diagnostics).toEqual([]);
  });

  it("gives every operation an operationId, a summary, a 2xx or 101, error responses and security", () => {
    const ids = new Set<string>();
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const op = operation as {
          operationId?: string;
          summary?: string;
          security?: unknown[];
          responses: Record<string, unknown>;
        };
        const where = `${method} ${path}`;
        expect(op.operationId, where).toMatch(/^[a-z][A-Za-z]+$/);
        expect(ids.has(op.operationId ?? ""), `${where}: duplicate operationId`).toBe(false);
        ids.add(op.operationId ?? "");
        expect(op.summary, where).toBeTruthy();
        expect(op.security, where).toBeDefined();
        const statuses = Object.keys(op.responses);
        expect(
          statuses.some((status) => /^(2\d\d|101)$/.test(status)),
          where,
        ).toBe(true);
        expect(statuses, where).toContain("500");
        if ((op.security ?? []).length > 0) expect(statuses, where).toContain("401");
      }
    }
    expect(ids.size).toBe(36);
  });

  it("declares every query parameter with its bounds", () => {
    type Parameter = { name: string; in: string; schema: { minimum?: number; maximum?: number } };
    const parameters = (path: string) =>
      (
        (document.paths[path]?.get as unknown as { parameters?: Parameter[] } | undefined)?.parameters ?? []
      ).filter((parameter) => parameter.in === "query");
    const bounds = (path: string) =>
      Object.fromEntries(
        parameters(path).map((parameter) => [
          parameter.name,
          [parameter.schema.minimum, parameter.schema.maximum],
        ]),
      );
    expect(bounds("/v1/threads/{id}/events")).toEqual({
      since: [-1, Number.MAX_SAFE_INTEGER],
      limit: [1, 10_000],
      // A list of event types: bounded by its pattern and length, not by numbers.
      types: [undefined, undefined],
    });
    expect(bounds("/v1/agents/{id}/messages")).toEqual({
      afterSeq: [-1, Number.MAX_SAFE_INTEGER],
      limit: [1, 5_000],
    });
    expect(bounds("/v1/threads")).toEqual({ limit: [1, 1_000] });
    expect(bounds("/v1/agents/{id}/history")).toEqual({
      offset: [0, Number.MAX_SAFE_INTEGER],
      limit: [1, 5_000],
    });
  });

  it("has a document entry for every API route hono serves, and a route for every entry", () => {
    const documented = new Set(
      Object.entries(document.paths).flatMap(([path, item]) =>
        Object.keys(item).map((method) => `${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ":$1")}`),
      ),
    );
    const served = new Set(
      app.routes
        // Middleware and catch-alls are ALL or end in `*`; `/` is the dashboard (or its not-built notice).
        .filter((route) => route.method !== "ALL" && !route.path.endsWith("*") && route.path !== "/")
        .map((route) => `${route.method} ${route.path}`),
    );
    expect([...served].filter((route) => !documented.has(route))).toEqual([]);
    expect([...documented].filter((route) => !served.has(route))).toEqual([]);
  });
});

describe("the SDK against the document", () => {
  it("calls each operation with the method, path and the very protocol schemas the server declares", () => {
    const byId = new Map(registeredRoutes().map((route) => [route.operationId, route]));
    for (const [operationId, endpoint] of Object.entries(restEndpoints)) {
      const route = byId.get(operationId);
      expect(route, operationId).toBeDefined();
      if (!route) continue;
      expect(`${route.method.toUpperCase()} ${route.path}`, operationId).toBe(
        `${endpoint.method} ${endpoint.path}`,
      );
      expect(route.request?.body?.content["application/json"]?.schema, `${operationId} body`).toBe(
        "body" in endpoint ? endpoint.body : undefined,
      );
      expect(route.request?.query, `${operationId} query`).toBe(
        "query" in endpoint ? endpoint.query : undefined,
      );
      const success = Object.entries(route.responses).filter(([status]) => /^2\d\d$/.test(status));
      expect(success, operationId).toHaveLength(1);
      expect(success[0]?.[1].content?.["application/json"]?.schema, `${operationId} response`).toBe(
        endpoint.response,
      );
      const pathParams = [...endpoint.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
      const declared = route.request?.params as { shape?: Record<string, unknown> } | undefined;
      expect(Object.keys(declared?.shape ?? {}), `${operationId} params`).toEqual(pathParams);
    }
  });

  it("leaves out only the operations a program does not call over REST", () => {
    const called = new Set(Object.keys(restEndpoints));
    const uncalled = registeredRoutes()
      .map((route) => route.operationId ?? "")
      .filter((operationId) => !called.has(operationId))
      .sort();
    // Metrics and readiness are for Prometheus and orchestrators, the document for tools; the SDK
    // opens the WebSocket through its connection, not as a REST call; the gateway is called with the
    // OpenAI and Anthropic SDKs (or any client of those APIs), not with longrun's.
    expect(uncalled).toEqual([
      "compactResponse",
      "countMessageTokens",
      "createChatCompletion",
      "createMessage",
      "createResponse",
      "getMetrics",
      "getOpenApiDocument",
      "getReadiness",
      "openWebSocket",
    ]);
  });
});
