import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { and, asc, eq, inArray, isNull, ne } from "drizzle-orm";
import type { StoreContext } from "./context.ts";
import { newId } from "./ids.ts";
import { type ApiKeyOrigin, apiKeys } from "./schema.ts";

/** A key as listings show it: never the token, only its last four characters. */
export interface ApiKeyRecord {
  id: string;
  tenantId: string;
  origin: ApiKeyOrigin;
  admin: boolean;
  hint: string;
  createdAt: number;
  revokedAt: number | null;
}

export interface ApiKeyOptions {
  origin?: ApiKeyOrigin;
  admin?: boolean;
}

export interface ApiKeyRepository {
  /**
   * Issues a key for a tenant; the token is returned once and only its sha256 is stored. A given
   * `token` (e.g. LONGRUN_TOKEN) is registered instead of a random one.
   */
  create(tenantId: string, token?: string, options?: ApiKeyOptions): Promise<{ id: string; token: string }>;
  /** The tenant a token belongs to, or null for an unknown or revoked token. */
  verify(token: string): Promise<{ tenantId: string; keyId: string; admin: boolean } | null>;
  /** Revokes a key; returns false if it did not exist or was already revoked. */
  revoke(id: string): Promise<boolean>;
  /** Every key, revoked ones included, oldest first. */
  list(): Promise<ApiKeyRecord[]>;
  /** Which of `ids` are still valid (exist and are not revoked). */
  active(ids: readonly string[]): Promise<Set<string>>;
  /**
   * Registers `token` as the key of its `origin` (LONGRUN_TOKEN, the token file) for `tenantId`, as admin,
   * and revokes every other live key of that origin, in one transaction: the previous LONGRUN_TOKEN stops
   * working when it changes. A token that was revoked stays revoked (`revoked` is then its key id).
   */
  adopt(
    tenantId: string,
    token: string,
    origin: Exclude<ApiKeyOrigin, "created">,
  ): Promise<{ id: string; replaced: string[] } | { revoked: string }>;
}

function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

function hintOf(token: string): string {
  return token.slice(-4);
}

/** Bearer tokens, one tenant each. */
export function createApiKeyRepository(context: StoreContext): ApiKeyRepository {
  return {
    async create(tenantId, given, options = {}) {
      const now = context.now();
      const id = newId(now);
      const token = given ?? `lr_${randomBytes(32).toString("base64url")}`;
      await context.write((tx) =>
        tx.insert(apiKeys).values({
          id,
          tenantId,
          tokenHash: hashToken(token),
          createdAt: now,
          origin: options.origin ?? "created",
          admin: options.admin ?? false,
          hint: hintOf(token),
        }),
      );
      return { id, token };
    },
    async verify(token) {
      const hash = hashToken(token);
      // Every served request asks this: a prepared statement, not a drizzle query built and prepared anew.
      const result = await context.readRaw((reader) =>
        reader.execute({
          sql: "SELECT id, tenant_id, token_hash, admin FROM api_keys WHERE token_hash = ? AND revoked_at IS NULL LIMIT 1",
          args: [hash],
        }),
      );
      const row = result.rows[0];
      if (!row) return null;
      // The lookup is by hash already; the explicit compare keeps the check constant-time on its own.
      if (!timingSafeEqual(Buffer.from(String(row.token_hash), "hex"), Buffer.from(hash, "hex"))) return null;
      return { tenantId: String(row.tenant_id), keyId: String(row.id), admin: Number(row.admin) === 1 };
    },
    async revoke(id) {
      const rows = await context.write((tx) =>
        tx
          .update(apiKeys)
          .set({ revokedAt: context.now() })
          .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
          .returning({ id: apiKeys.id }),
      );
      return rows.length > 0;
    },
    async list() {
      const rows = await context.read((db) =>
        db.select().from(apiKeys).orderBy(asc(apiKeys.createdAt), asc(apiKeys.id)),
      );
      return rows.map(({ tokenHash: _hash, ...record }) => record);
    },
    async active(ids) {
      if (ids.length === 0) return new Set();
      const rows = await context.read((db) =>
        db
          .select({ id: apiKeys.id })
          .from(apiKeys)
          .where(and(inArray(apiKeys.id, [...ids]), isNull(apiKeys.revokedAt))),
      );
      return new Set(rows.map((row) => row.id));
    },
    async adopt(tenantId, token, origin) {
      const hash = hashToken(token);
      const now = context.now();
      return context.write(async (tx) => {
        const existing = (await tx.select().from(apiKeys).where(eq(apiKeys.tokenHash, hash)).limit(1))[0];
        if (existing?.revokedAt != null) return { revoked: existing.id };
        const id = existing?.id ?? newId(now);
        if (existing) {
          await tx.update(apiKeys).set({ origin, admin: true }).where(eq(apiKeys.id, id));
        } else {
          await tx.insert(apiKeys).values({
            id,
            tenantId,
            tokenHash: hash,
            createdAt: now,
            origin,
            admin: true,
            hint: hintOf(token),
          });
        }
        const replaced = await tx
          .update(apiKeys)
          .set({ revokedAt: now })
          .where(and(eq(apiKeys.origin, origin), isNull(apiKeys.revokedAt), ne(apiKeys.id, id)))
          .returning({ id: apiKeys.id });
        return { id, replaced: replaced.map((row) => row.id) };
      });
    },
  };
}
