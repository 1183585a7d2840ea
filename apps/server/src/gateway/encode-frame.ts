import type { ServerFrame } from "@longrun/protocol";

/** JSON of each live event object, shared by every session that forwards it. */
const eventJson = new WeakMap<object, string>();

/**
 * Encodes a server frame as JSON text. An event object fanned out to many sockets is stringified once
 * (the fan-out hands every session the same object), and the fan-out's `tenantId` stamp never reaches
 * the wire.
 */
export function encodeFrame(frame: ServerFrame): string {
  if (frame.type !== "event") return JSON.stringify(frame);
  let json = eventJson.get(frame.event);
  if (json === undefined) {
    const { tenantId: _tenantId, ...event } = frame.event as typeof frame.event & { tenantId?: string };
    json = JSON.stringify(event);
    eventJson.set(frame.event, json);
  }
  return `{"type":"event","subscription":${JSON.stringify(frame.subscription)},"event":${json}}`;
}
