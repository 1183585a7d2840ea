import { OpenAPIHono } from "@hono/zod-openapi";
import { ErrorCode, statusOf } from "@longrun/protocol";
import { z } from "zod";
import type { AuthEnv } from "./auth.ts";
import { validationError } from "./http-error.ts";

/**
 * The pieces every route definition is made of. Routes are declared once with `createRoute` (params,
 * query, body and responses as the protocol's zod schemas); the handler is typed from that declaration
 * and the OpenAPI document is generated from the same objects, so neither can exist without the other.
 */

/** A router whose validation failures become `{error: {code, message}}` like every other error. */
export function createRouter(): OpenAPIHono<AuthEnv> {
  return new OpenAPIHono<AuthEnv>({
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.error, result.target);
    },
  });
}

/** `application/json` content of a response or body. */
export function json<Schema extends z.ZodType>(schema: Schema) {
  return { "application/json": { schema } } as const;
}

/** A JSON response with its schema. */
export function jsonResponse<Schema extends z.ZodType>(description: string, schema: Schema) {
  return { description, content: json(schema) };
}

/** A required JSON request body. */
export function jsonBody<Schema extends z.ZodType>(schema: Schema, description?: string) {
  return { required: true, content: json(schema), ...(description ? { description } : {}) };
}

type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 415 | 426 | 429 | 500 | 503;

const COMPONENT_OF_STATUS: Record<ErrorStatus, string> = {
  400: "BadRequestError",
  401: "UnauthorizedError",
  403: "ForbiddenError",
  404: "NotFoundError",
  409: "ConflictError",
  413: "PayloadTooLargeError",
  415: "UnsupportedMediaTypeError",
  426: "UpgradeRequiredError",
  429: "TooManyRequestsError",
  500: "InternalError",
  503: "UnavailableError",
};

/** The error codes a documented status carries (protocol's statusOf, inverted): 429 and 503 have two. */
function codesAt(status: ErrorStatus): [ErrorCode, ...ErrorCode[]] {
  const [first, ...rest] = ErrorCode.options.filter((code) => statusOf(code) === Number(status));
  if (!first) throw new Error(`no error code has status ${status}`);
  return [first, ...rest];
}

/** One error body schema per status, its `code` the one literal that status carries. */
const ERROR_SCHEMAS = Object.fromEntries(
  (Object.keys(COMPONENT_OF_STATUS) as unknown as ErrorStatus[]).map((status) => {
    const codes = codesAt(status);
    const code = codes.length === 1 ? z.literal(codes[0]) : z.enum(codes);
    return [
      status,
      z
        .object({
          error: z.object({ code, message: z.string(), details: z.unknown().optional() }),
        })
        .meta({ id: COMPONENT_OF_STATUS[status] }),
    ];
  }),
) as unknown as Record<ErrorStatus, z.ZodType>;

/** The error responses of an operation: status → when it happens. */
export function errors(cases: Partial<Record<ErrorStatus, string>>) {
  const responses: Record<number, { description: string; content: ReturnType<typeof json> }> = {};
  const all = { ...cases, 500: cases[500] ?? "an unexpected server error (logged)" };
  for (const [status, when] of Object.entries(all)) {
    const typed = Number(status) as ErrorStatus;
    responses[typed] = {
      description: `${codesAt(typed)
        .map((code) => `\`${code}\``)
        .join(" or ")}: ${when}`,
      content: json(ERROR_SCHEMAS[typed]),
    };
  }
  return responses;
}

/** What every authenticated operation can answer. */
export const AUTH_ERRORS = {
  401: "missing or invalid bearer token",
  429: "the tenant is over its request rate (`rate_limited`) or, for a request that starts a run, its runs under way or queued (`too_many_runs`); `Retry-After` says when to try again",
} as const;

/** What every operation with a JSON body can answer, besides its own cases. */
export const BODY_ERRORS = {
  400: "the body is not JSON or does not match the schema (the message names each field)",
  413: "the body is over the server's body limit",
  415: "a body was sent with a content type other than application/json",
} as const;

/**
 * The token schemes: the bearer header, Anthropic clients' `x-api-key` header, or `?token=` for the
 * dashboard and browsers' WebSocket.
 */
export const BEARER: Array<Record<string, string[]>> = [
  { bearer: [] },
  { apiKeyHeader: [] },
  { queryToken: [] },
];

/** Registers the schemes named by BEARER on an app's document. */
export function registerSecuritySchemes(app: OpenAPIHono<AuthEnv>): void {
  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", {
    type: "http",
    scheme: "bearer",
    description: "A tenant's token (`longrun token create --tenant T`); each token sees only its tenant.",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "apiKeyHeader", {
    type: "apiKey",
    in: "header",
    name: "x-api-key",
    description:
      "The same token in the header Anthropic clients send it in (Claude Code's ANTHROPIC_API_KEY).",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "queryToken", {
    type: "apiKey",
    in: "query",
    name: "token",
    description: "The same token as a query parameter, for the dashboard URL and browser WebSockets.",
  });
}
