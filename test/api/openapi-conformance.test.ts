import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
// Test-only: the real composition of embedded mode (a package dependency would be a cycle cli → server).
import { type EmbeddedInstance, loadConfig, openLog, startEmbedded } from "@longrun/cli";
import { createClient } from "@longrun/client";
import { createTempWorkspace, type TempWorkspace } from "@longrun/testing";
import Ajv2020 from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";

/**
 * The document proven against the server: every documented operation is called with a request built
 * from the document, valid (→ its documented 2xx) and invalid in every way the document allows
 * (→ one of its documented 4xx), and every answer is checked against the documented schema.
 */

type Schema = Record<string, unknown>;
interface Parameter {
  name: string;
  in: "path" | "query";
  schema: Schema;
}
interface Operation {
  operationId: string;
  security?: unknown[];
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

let dataDir: string;
let roots: TempWorkspace;
let instance: EmbeddedInstance;
let document: Document;
let ajv: Ajv2020;
const fixture = {
  threadId: "",
  agentId: "",
  messageId: "",
  approvalAgentId: "",
  callId: "",
  runId: "",
  keyId: "",
  ruleId: "",
};
const checked = { operations: 0, valid: 0, invalid: 0 };

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "longrun-conformance-"));
  roots = await createTempWorkspace();
  await mkdir(join(roots.dir, "project"));
  const config = loadConfig({ PORT: "0", LONGRUN_DATA_DIR: dataDir, LONGRUN_WORKSPACE_ROOTS: roots.dir });
  instance = await startEmbedded(config);
  document = (await (await fetch(`${instance.url}/v1/openapi.json`)).json()) as Document;
  ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema({ ...document, $id: "longrun-openapi" });

  const client = createClient({ baseUrl: instance.url, token: instance.token });
  // A spare key for revokeToken to revoke (never the token this test calls with).
  const store = await openLog(config);
  fixture.keyId = (await store.apiKeys.create("spare")).id;
  await store.close();
  const idle = await client.threads.create({ model: "sim", simSteps: 1 });
  fixture.threadId = idle.id;
  fixture.agentId = idle.agents[0]?.id ?? "";
  // The idle thread's system message: a point to fork (and rewind) it at.
  fixture.messageId = (await client.agents.messages(fixture.agentId)).messages[0]?.id ?? "";
  // A rule for revokeApprovalRule to revoke.
  fixture.ruleId = (
    await client.approvals.createRule({ scope: "tenant", toolName: "run_command", pattern: "true" })
  ).id;
  const parked = await client.threads.create({ model: "sim", simSteps: 2, simScript: "approval" });
  fixture.runId = (await client.threads.sendMessage(parked.id, { content: "Check the repository." })).runId;
  await vi.waitFor(
    async () => {
      const requested = (await client.threads.events(parked.id)).find(
        (event) => event.type === "approval.requested",
      );
      expect(requested?.type).toBe("approval.requested");
      if (requested?.type !== "approval.requested") return;
      fixture.callId = requested.data.callId;
      fixture.approvalAgentId = requested.agentId ?? "";
    },
    { timeout: 30_000, interval: 50 },
  );
});

afterAll(async () => {
  console.log(
    `[conformance] ${checked.operations} documented operations checked against the running server: ${checked.valid} valid requests → documented 2xx/101, ${checked.invalid} invalid → documented 4xx`,
  );
  await instance?.close();
  await roots?.cleanup();
  await rm(dataDir, { recursive: true, force: true });
});

function pointer(...parts: string[]): string {
  return parts.map((part) => part.replaceAll("~", "~0").replaceAll("/", "~1")).join("/");
}

function deref(schema: Schema): Schema {
  const ref = schema.$ref;
  if (typeof ref !== "string") return schema;
  const name = ref.replace("#/components/schemas/", "");
  return deref(document.components.schemas[name] ?? {});
}

function typeOf(schema: Schema): string | undefined {
  const type = schema.type;
  return Array.isArray(type) ? (type.find((entry) => entry !== "null") as string) : (type as string);
}

/** The smallest instance the schema accepts: required properties only, each at its lower bound. */
function validExample(input: Schema): unknown {
  const schema = deref(input);
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  // A string with a pattern (a list of event types) documents an example that matches it.
  if (Array.isArray(schema.examples)) return schema.examples[0];
  for (const key of ["anyOf", "oneOf"] as const)
    if (Array.isArray(schema[key])) return validExample((schema[key] as Schema[])[0] ?? {});
  switch (typeOf(schema)) {
    case "object": {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const required = (schema.required ?? []) as string[];
      return Object.fromEntries(required.map((name) => [name, validExample(properties[name] ?? {})]));
    }
    case "array":
      return Array.from({ length: Number(schema.minItems ?? 0) }, () =>
        validExample((schema.items ?? {}) as Schema),
      );
    case "string":
      return "a".repeat(Math.max(1, Number(schema.minLength ?? 0)));
    case "integer":
    case "number":
      return (
        schema.minimum ?? (typeof schema.exclusiveMinimum === "number" ? schema.exclusiveMinimum + 1 : 1)
      );
    case "boolean":
      return true;
    default:
      return null;
  }
}

/** A value of the wrong JSON type for the schema. */
function wrongType(input: Schema): unknown {
  const type = typeOf(deref(input));
  return type === "string" || Array.isArray(deref(input).enum) ? 12_345 : "not-a-valid-value";
}

/** A body the schema refuses: a required property missing, or else one property of the wrong type. */
function invalidBody(input: Schema): unknown {
  const schema = deref(input);
  const required = (schema.required ?? []) as string[];
  if (required.length > 0) return {};
  const [name, property] = Object.entries((schema.properties ?? {}) as Record<string, Schema>)[0] ?? [];
  return name ? { [name]: wrongType(property ?? {}) } : "not an object";
}

function pathFor(path: string, mapping: Record<string, string>): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(mapping[name] ?? "missing"));
}

function idsFor(path: string): Record<string, string> {
  if (path.includes("/approvals/")) return { id: fixture.approvalAgentId, callId: fixture.callId };
  if (path.startsWith("/v1/threads/")) return { id: fixture.threadId };
  if (path.startsWith("/v1/agents/")) return { id: fixture.agentId };
  if (path.startsWith("/v1/runs/")) return { id: fixture.runId };
  if (path.startsWith("/v1/tokens/")) return { id: fixture.keyId };
  if (path.startsWith("/v1/approval-rules/")) return { id: fixture.ruleId };
  return {};
}

async function send(
  method: string,
  path: string,
  options: { token?: boolean; query?: Record<string, string>; body?: string; contentType?: string } = {},
): Promise<{ status: number; contentType: string; body: unknown }> {
  const url = new URL(`${instance.url}${path}`);
  for (const [key, value] of Object.entries(options.query ?? {})) url.searchParams.set(key, value);
  const headers: Record<string, string> = {};
  if (options.token !== false) headers.authorization = `Bearer ${instance.token}`;
  if (options.body !== undefined) headers["content-type"] = options.contentType ?? "application/json";
  const response = await fetch(url, {
    method: method.toUpperCase(),
    headers,
    ...(options.body !== undefined ? { body: options.body } : {}),
  });
  const contentType = response.headers.get("content-type") ?? "";
  const text = await response.text();
  return {
    status: response.status,
    contentType,
    body: contentType.includes("json") ? JSON.parse(text) : text,
  };
}

/** Checks an answer against the operation's documented responses; returns the status for the caller. */
function expectDocumented(
  path: string,
  method: string,
  operation: Operation,
  answer: { status: number; contentType: string; body: unknown },
  expected: (status: number) => boolean,
  what: string,
): void {
  const where = `${operation.operationId} (${what})`;
  expect(expected(answer.status), `${where}: status ${answer.status} ${JSON.stringify(answer.body)}`).toBe(
    true,
  );
  const response = operation.responses[String(answer.status)];
  expect(response, `${where}: status ${answer.status} is not documented`).toBeDefined();
  const media = Object.keys(response?.content ?? {})[0];
  if (!media) return;
  expect(answer.contentType, where).toContain(media);
  if (media !== "application/json") return;
  const validate = ajv.compile({
    $ref: `longrun-openapi#/${pointer("paths", path, method, "responses", String(answer.status), "content", media, "schema")}`,
  });
  expect(validate(answer.body), `${where}: ${ajv.errorsText(validate.errors)}`).toBe(true);
}

/** Requests to the gateway (OpenAI and Anthropic APIs) that its upstream (the sim model) can answer. */
const GATEWAY_REQUESTS: Record<string, unknown> = {
  createChatCompletion: { model: "sim", messages: [{ role: "user", content: "Say hello." }] },
  createResponse: { model: "sim", input: "Say hello." },
  compactResponse: { model: "sim", input: "Say hello." },
  createMessage: { model: "sim", max_tokens: 256, messages: [{ role: "user", content: "Say hello." }] },
  countMessageTokens: { model: "sim", messages: [{ role: "user", content: "Say hello." }] },
};

/** Valid bodies that name a fixture (a schema's smallest instance names none that exists). */
const fixtureRequest = (operationId: string): unknown =>
  operationId === "forkThread" || operationId === "rewindThread"
    ? { atMessageId: fixture.messageId }
    : undefined;

const isSuccess = (status: number) => status >= 200 && status < 300;
const isClientError = (status: number) => status >= 400 && status < 500;

/** Operations in an order where each finds its fixture still in place (the parked call, the run). */
function operationsInOrder(): Array<[string, string, Operation]> {
  const all = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(
      ([method, operation]) => [path, method, operation] as [string, string, Operation],
    ),
  );
  const rank = (operationId: string) =>
    operationId === "resolveApproval" ? 0 : operationId === "cancelRun" ? 2 : 1;
  return all.sort((left, right) => rank(left[2].operationId) - rank(right[2].operationId));
}

describe("every documented operation against the running server", () => {
  it("answers a valid request with its documented success and each invalid one with a documented 4xx", async () => {
    for (const [path, method, operation] of operationsInOrder()) {
      checked.operations++;
      const ids = idsFor(path);
      const parameters = operation.parameters ?? [];
      const query = Object.fromEntries(
        parameters
          .filter((parameter) => parameter.in === "query")
          .map((parameter) => [parameter.name, String(validExample(parameter.schema))]),
      );
      const bodySchema = operation.requestBody?.content["application/json"]?.schema;

      if (operation.operationId === "openWebSocket") {
        // The valid request is an upgrade: 101 and an open socket.
        const opened = await new Promise<boolean>((resolve) => {
          const socket = new WebSocket(
            `${instance.url.replace("http", "ws")}${path}?token=${instance.token}`,
          );
          socket.once("open", () => {
            socket.close();
            resolve(true);
          });
          socket.once("error", () => resolve(false));
        });
        expect(opened, "openWebSocket upgrade").toBe(true);
        expect(operation.responses["101"]).toBeDefined();
        checked.valid++;
        const plain = await send(method, path);
        expectDocumented(path, method, operation, plain, (status) => status === 426, "plain GET");
        checked.invalid++;
      } else {
        // The gateway's schemas accept any model name; a valid request names one the upstream knows.
        const example =
          GATEWAY_REQUESTS[operation.operationId] ??
          fixtureRequest(operation.operationId) ??
          (bodySchema ? validExample(bodySchema) : undefined);
        const valid = await send(method, pathFor(path, ids), {
          query,
          ...(example !== undefined ? { body: JSON.stringify(example) } : {}),
        });
        expectDocumented(path, method, operation, valid, isSuccess, "valid request");
        checked.valid++;
      }

      const invalid: Array<[string, Parameters<typeof send>[2], string]> = [];
      if ((operation.security ?? []).length > 0)
        invalid.push([pathFor(path, ids), { token: false }, "no token"]);
      if (bodySchema) {
        invalid.push([pathFor(path, ids), { body: "{not json" }, "malformed JSON"]);
        invalid.push([
          pathFor(path, ids),
          { body: JSON.stringify(invalidBody(bodySchema)) },
          "body off its schema",
        ]);
        invalid.push([pathFor(path, ids), { body: "plain text", contentType: "text/plain" }, "not JSON"]);
      }
      for (const parameter of parameters.filter((candidate) => candidate.in === "query")) {
        const { minimum, maximum } = parameter.schema as { minimum?: number; maximum?: number };
        for (const bad of [
          "x",
          minimum !== undefined ? String(minimum - 1) : null,
          maximum !== undefined ? `${maximum}0` : null,
        ]) {
          if (bad !== null)
            invalid.push([
              pathFor(path, ids),
              { query: { ...query, [parameter.name]: bad } },
              `${parameter.name}=${bad}`,
            ]);
        }
      }
      if (operation.responses["404"] && Object.keys(ids).length > 0) {
        const unknown = Object.fromEntries(Object.keys(ids).map((name) => [name, "nope"]));
        const body = bodySchema ? { body: JSON.stringify(validExample(bodySchema)) } : {};
        invalid.push([pathFor(path, unknown), { query, ...body }, "unknown id"]);
      }
      for (const [target, options, what] of invalid) {
        expectDocumented(path, method, operation, await send(method, target, options), isClientError, what);
        checked.invalid++;
      }
    }
    expect(checked.operations).toBe(36);
  }, 120_000);
});
