import type { ServerFrame } from "@longrun/protocol";

/** Encodes a server frame as JSON text; the fan-out's `tenantId` stamp on an event never reaches the wire. */
export function encodeFrame(frame: ServerFrame): string {
  if (frame.type !== "event") return JSON.stringify(frame);
  const { tenantId: _tenantId, ...event } = frame.event as typeof frame.event & { tenantId?: string };
  return JSON.stringify({ ...frame, event });
}
