import { createHash } from "node:crypto";
import type { FileContent } from "@longrun/store";

/** LONGRUN_SNAPSHOT_MAX_BYTES when unset: a file content up to 1 MiB is kept whole. */
export const DEFAULT_SNAPSHOT_MAX_BYTES = 1_048_576;

/** sha256 (hex) of some bytes: the address of a stored content. */
export function contentHash(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/**
 * The snapshot of one file version: hash and size always; the bytes only up to `maxBytes` (over it,
 * the snapshot says which content it was without keeping it). `null` stays null: no file.
 */
export function fileContent(bytes: Uint8Array | null, maxBytes: number): FileContent | null {
  if (bytes === null) return null;
  return { hash: contentHash(bytes), size: bytes.length, bytes: bytes.length <= maxBytes ? bytes : null };
}
