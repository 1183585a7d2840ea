/** A connection authenticated by one key, closable when that key is revoked. */
export interface KeyedConnection {
  keyId: string;
  /** Closes the connection because its token was revoked. */
  revoke(): void;
}

/**
 * Closes connections whose key was revoked, on any instance or by `longrun token revoke`: every
 * `intervalMs` the keys of the open connections are checked against the shared store in one query, so a
 * revoked token's socket lives at most that long (REST and the gateway check every request).
 */
export function watchRevocations(
  connections: () => Iterable<KeyedConnection>,
  liveKeys: (ids: readonly string[]) => Promise<Set<string>>,
  intervalMs: number,
): () => void {
  let checking = false;
  const timer = setInterval(() => {
    const open = [...connections()];
    if (checking || open.length === 0) return;
    checking = true;
    liveKeys([...new Set(open.map((connection) => connection.keyId))])
      .then((live) => {
        for (const connection of open) if (!live.has(connection.keyId)) connection.revoke();
      })
      // The store is briefly unreachable: keep the connections, check again next tick.
      .catch(() => undefined)
      .finally(() => {
        checking = false;
      });
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
