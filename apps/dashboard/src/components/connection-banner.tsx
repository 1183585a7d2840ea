import type { ConnectionState } from "../state/app-reducer.ts";

/** A visible banner while the live connection is down or the server cannot be reached. */
export function ConnectionBanner({
  connection,
  threadsError,
}: {
  connection: ConnectionState;
  threadsError: string | null;
}) {
  if (connection === "reconnecting" || connection === "closed") {
    return (
      <div
        className="banner banner-warn"
        role="status"
        data-testid="connection-banner"
        data-status={connection}
      >
        {connection === "reconnecting"
          ? "Reconnecting… live updates resume where they stopped."
          : "Disconnected from the server."}
      </div>
    );
  }
  if (connection === "connecting") {
    return (
      <div
        className="banner banner-info"
        role="status"
        data-testid="connection-banner"
        data-status="connecting"
      >
        Connecting…
      </div>
    );
  }
  if (threadsError) {
    // With the live connection up the server is reachable: only the list's read failed.
    return (
      <div className="banner banner-error" role="status" data-testid="connection-banner" data-status="error">
        {connection === "open" ? "The thread list could not be read" : "Cannot reach the server"}:{" "}
        {threadsError}
      </div>
    );
  }
  return null;
}
