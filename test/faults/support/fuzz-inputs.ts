import { join } from "node:path";
import fc from "fast-check";

/**
 * The hostile-input pass's inputs, built from the OpenAPI document's schemas (the protocol's zod
 * schemas, rendered): hostile strings, bodies that are wrong in type, shape, size or content type,
 * and ids of both tenants' objects in every path.
 */

export type Schema = Record<string, unknown>;
export interface Operation {
  operationId: string;
  security?: unknown[];
  tags?: string[];
  parameters?: Array<{ name: string; in: "path" | "query"; schema: Schema }>;
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, unknown>;
}
export interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}
export interface TenantIds {
  threadIds: string[];
  agentIds: string[];
  runIds: string[];
  callIds: string[];
}
export interface RestInput {
  path: string;
  method: string;
  operation: Operation;
  actor: "alice" | "bob";
  params: Record<string, string>;
  query: Record<string, string>;
  body?: { text: string; contentType: string };
}

export function fuzzInputs(context: {
  document: Document;
  roots: string;
  maxMessageChars: number;
  alice: TenantIds;
  bob: TenantIds;
}) {
  const { document, roots, alice, bob } = context;
  const MAX_MESSAGE_CHARS = context.maxMessageChars;

  function deref(schema: Schema): Schema {
    const ref = schema.$ref;
    return typeof ref === "string"
      ? deref(document.components.schemas[ref.split("/").at(-1) ?? ""] ?? {})
      : schema;
  }

  function typeOf(schema: Schema): string | undefined {
    const type = schema.type;
    return Array.isArray(type) ? (type.find((entry) => entry !== "null") as string) : (type as string);
  }

  const hostileStrings = fc.constantFrom(
    "",
    "\u0000",
    "a\u0000b",
    "../../../../etc/passwd",
    "%2e%2e%2f",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the literal text attackers send.
    "${jndi:ldap://x}",
    "'; drop table threads; --",
    "\u202e\ufeff",
    "*",
    "x".repeat(250),
  );

  /** Clean values for the fields a valid request needs to be meaningful (and cheap: one-step sim runs). */
  function cleanField(name: string): fc.Arbitrary<unknown> | null {
    if (name === "content" || name === "brief") return fc.string({ minLength: 1, maxLength: 80 });
    // Threads the pass creates run one-step agents: the pass measures the API, not long agent runs.
    if (name === "simSteps") return fc.constant(1);
    if (name === "decision") return fc.constantFrom("approve", "deny");
    return null;
  }

  /** Values for fields where random text would only ever be refused: keep some of them meaningful. */
  function fieldArbitrary(name: string): fc.Arbitrary<unknown> | null {
    switch (name) {
      case "simSteps":
        return fc.integer({ min: 1, max: 2 });
      case "model":
        return fc.constantFrom("sim", "gpt-nonexistent", "sim:steps=1", "");
      case "simScript":
        return fc.constantFrom("explorer", "approval", "nonsense");
      case "workspace":
        return fc.constantFrom(
          join(roots, "alice-project"),
          join(roots, "bob-project"),
          join(roots, "alice-project", "sub"),
          join(roots, "..dotdot"),
          join(roots, "escape"),
          roots,
          join(roots, ".."),
          "/etc",
          "relative/path",
        );
      case "systemPrompt":
      case "task":
      case "content":
      case "brief":
        return fc.oneof(
          fc.string({ maxLength: 200 }),
          hostileStrings,
          fc.constant("y".repeat(MAX_MESSAGE_CHARS + 1)),
        );
      default:
        return null;
    }
  }

  /** Values the schema describes; `clean` keeps to required properties and ordinary text (mostly accepted). */
  function arbitraryFor(input: Schema, depth = 0, name = "", clean = false): fc.Arbitrary<unknown> {
    const special = clean ? cleanField(name) : fieldArbitrary(name);
    if (special) return special;
    const schema = deref(input);
    if ("const" in schema) return fc.constant(schema.const);
    if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
    for (const key of ["anyOf", "oneOf"] as const)
      if (Array.isArray(schema[key]))
        return fc.oneof(
          ...(schema[key] as Schema[]).map((member) => arbitraryFor(member, depth + 1, name, clean)),
        );
    switch (typeOf(schema)) {
      case "object": {
        const properties = (schema.properties ?? {}) as Record<string, Schema>;
        if (depth > 4 || Object.keys(properties).length === 0) return fc.constant({});
        const required = (schema.required ?? []) as string[];
        const model = Object.fromEntries(
          Object.entries(properties)
            .filter(([key]) => !clean || required.includes(key) || cleanField(key) !== null)
            .map(([key, value]) => [key, arbitraryFor(value, depth + 1, key, clean)]),
        );
        return fc.record(model, {
          requiredKeys: clean ? Object.keys(model) : required.filter((key) => key in model),
        });
      }
      case "array":
        return fc.array(arbitraryFor((schema.items ?? {}) as Schema, depth + 1, name, clean), {
          minLength: Number(schema.minItems ?? 0),
          maxLength: Math.min(3, Number(schema.maxItems ?? 3)),
        });
      case "string": {
        const text = fc.string({ minLength: Math.max(1, Number(schema.minLength ?? 0)), maxLength: 40 });
        return clean
          ? text
          : fc.oneof({ weight: 4, arbitrary: text }, { weight: 1, arbitrary: hostileStrings });
      }
      case "integer":
        return fc.oneof(
          fc.integer({
            min: Number(schema.minimum ?? -1_000),
            max: Math.min(Number(schema.maximum ?? 1e9), 1e9),
          }),
          fc.constantFrom(-1, 0, 1e15, Number.MAX_SAFE_INTEGER),
        );
      case "number":
        return fc.oneof(
          fc.double({ noNaN: true, noDefaultInfinity: true, min: -10, max: 10 }),
          fc.constant(0.0001),
        );
      case "boolean":
        return fc.boolean();
      default:
        return fc.jsonValue({ maxDepth: 2 });
    }
  }

  /** A body: mostly shaped by the schema, sometimes any JSON, broken text, deep nesting, or over the limit. */
  function bodyArbitrary(schema: Schema): fc.Arbitrary<{ text: string; contentType: string }> {
    const json = (value: unknown) => ({
      text: JSON.stringify(value) ?? "null",
      contentType: "application/json",
    });
    return fc.oneof(
      { weight: 4, arbitrary: arbitraryFor(schema).map(json) },
      { weight: 3, arbitrary: arbitraryFor(schema, 0, "", true).map(json) },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map(json) },
      {
        weight: 1,
        arbitrary: fc.string({ maxLength: 60 }).map((text) => ({ text, contentType: "application/json" })),
      },
      {
        weight: 1,
        arbitrary: fc.constant({
          text: `${"[".repeat(50_000)}${"]".repeat(50_000)}`,
          contentType: "application/json",
        }),
      },
      {
        weight: 1,
        arbitrary: fc.constant({
          text: JSON.stringify({ pad: "z".repeat(3 * 1024 * 1024) }),
          contentType: "application/json",
        }),
      },
      {
        weight: 1,
        arbitrary: fc.constant({ text: "content=hi", contentType: "application/x-www-form-urlencoded" }),
      },
    );
  }

  /** A thread the pass creates without `simSteps` would run the sim's default 40 steps: keep it at one. */
  function oneStepThreads(operationId: string) {
    return (body: { text: string; contentType: string }) => {
      if (operationId !== "createThread") return body;
      try {
        const value = JSON.parse(body.text) as unknown;
        if (typeof value === "object" && value !== null && !Array.isArray(value) && !("simSteps" in value))
          return { ...body, text: JSON.stringify({ ...value, simSteps: 1 }) };
      } catch {
        // Not JSON: sent as it is.
      }
      return body;
    };
  }

  function restArbitrary(): fc.Arbitrary<RestInput> {
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, operation]) => operation.operationId !== "openWebSocket")
        .map(([method, operation]) => ({ path, method, operation })),
    );
    const ids = fc.constantFrom(
      ...alice.threadIds,
      ...alice.agentIds,
      ...alice.runIds,
      ...alice.callIds,
      ...bob.threadIds,
      ...bob.agentIds,
      ...bob.runIds,
      ...bob.callIds,
    );
    const idArbitrary = fc.oneof({ weight: 4, arbitrary: ids }, { weight: 1, arbitrary: hostileStrings });
    const queryValue = fc.oneof(
      fc.integer({ min: -5, max: 20_000 }).map(String),
      fc.constantFrom("-1", "1e3", "2.5", "NaN", "", "9".repeat(30), "0x10"),
    );
    return fc.constantFrom(...operations).chain(({ path, method, operation }) => {
      const pathNames = [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] ?? "");
      const queryNames = (operation.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name);
      const bodySchema = operation.requestBody?.content["application/json"]?.schema;
      return fc.record({
        path: fc.constant(path),
        method: fc.constant(method),
        operation: fc.constant(operation),
        actor: fc.constantFrom("alice" as const, "bob" as const),
        params: fc.record(Object.fromEntries(pathNames.map((name) => [name, idArbitrary]))) as fc.Arbitrary<
          Record<string, string>
        >,
        query: fc.record(Object.fromEntries(queryNames.map((name) => [name, queryValue])), {
          requiredKeys: [],
        }) as fc.Arbitrary<Record<string, string>>,
        ...(bodySchema ? { body: bodyArbitrary(bodySchema).map(oneStepThreads(operation.operationId)) } : {}),
      });
    });
  }

  return { restArbitrary, arbitraryFor };
}
