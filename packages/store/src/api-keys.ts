import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { and, eq, isNull } from "drizzle-orm";
import type { StoreContext } from "./context.ts";
import { newId } from "./ids.ts";
import { apiKeys } from "./schema.ts";

export interface ApiKeyRepository {
  /**
   * Issues a key for a tenant; the token is returned once and only its sha256 is stored. A given
   * `token` (e.g. LONGRUN_TOKEN) is registered instead of a random one.
   */
  create(tenantId: string, token?: string): Promise<{ id: string; token: string }>;
  /** The tenant a token belongs to, or null for an unknown or revoked token. */
  verify(token: string): Promise<{ tenantId: string; keyId: string } | null>;
  /** Revokes a key; returns false if it did not exist or was already revoked. */
  revoke(id: string): Promise<boolean>;
}

function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** Bearer tokens, one tenant each. */
export function createApiKeyRepository(context: StoreContext): ApiKeyRepository {
  return {
    async create(tenantId, given) {
      const now = context.now();
      const id = newId(now);
      const token = given ?? `lr_${randomBytes(32).toString("base64url")}`;
      await context.write((tx) =>
        tx.insert(apiKeys).values({ id, tenantId, tokenHash: hashToken(token), createdAt: now }),
      );
      return { id, token };
    },
    async verify(token) {
      const hash = hashToken(token);
      const rows = await context.read((db) =>
        db
          .select()
          .from(apiKeys)
          .where(and(eq(apiKeys.tokenHash, hash), isNull(apiKeys.revokedAt)))
          .limit(1),
      );
      const row = rows[0];
      if (!row) return null;
      // The lookup is by hash already; the explicit compare keeps the check constant-time on its own.
      if (!timingSafeEqual(Buffer.from(row.tokenHash, "hex"), Buffer.from(hash, "hex"))) return null;
      return { tenantId: row.tenantId, keyId: row.id };
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
  };
}
