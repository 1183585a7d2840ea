import { z } from "zod";

/** A bearer token's key as an admin sees it: never the token, only its last four characters. */
export const ApiKey = z
  .object({
    id: z.string(),
    tenantId: z.string(),
    /** `created` (`longrun token create`), `env` (LONGRUN_TOKEN), `generated` (embedded mode's token file). */
    origin: z.enum(["created", "env", "generated"]),
    /** Admin keys may list and revoke every tenant's keys. */
    admin: z.boolean(),
    hint: z.string(),
    createdAt: z.number().int(),
    revokedAt: z.number().int().nullable(),
  })
  .meta({ id: "ApiKey" });
export type ApiKey = z.infer<typeof ApiKey>;

/** GET /v1/tokens: every key of every tenant, revoked ones included, oldest first. */
export const ApiKeyList = z.object({ tokens: z.array(ApiKey) }).meta({ id: "ApiKeyList" });
export type ApiKeyList = z.infer<typeof ApiKeyList>;

/** DELETE /v1/tokens/:id: the key, now revoked. */
export const RevokedApiKey = z.object({ token: ApiKey }).meta({ id: "RevokedApiKey" });
export type RevokedApiKey = z.infer<typeof RevokedApiKey>;
