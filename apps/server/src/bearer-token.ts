/** The token of an `Authorization: Bearer <token>` header, or null: the one parser of REST, gateway and socket. */
export function bearerToken(header: string | undefined | null): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header.trim());
  return match?.[1] ?? null;
}
