import type { Row } from "@libsql/client";
import type { StoredMessage } from "@longrun/protocol";
import type { StoreContext } from "./context.ts";
import { newId } from "./ids.ts";
import type { MessageInput } from "./messages.ts";
import { json, parsed, textOrNull } from "./rows.ts";
import type { messages } from "./schema.ts";

/** A row of the messages table as drizzle reads it. */
export type MessageRow = typeof messages.$inferSelect;

/** Maps a row to the protocol shape, leaving absent optional fields out rather than null. */
export function toStoredMessage(row: MessageRow): StoredMessage {
  const message: StoredMessage = {
    id: row.id,
    agentId: row.agentId,
    seq: row.seq,
    role: row.role,
    content: row.content ?? null,
    tokenCount: row.tokenCount,
    createdAt: row.createdAt,
  };
  if (row.name !== null) message.name = row.name;
  if (row.toolCalls !== null) message.toolCalls = row.toolCalls;
  if (row.toolCallId !== null) message.toolCallId = row.toolCallId;
  if (row.toolStatus !== null) message.toolStatus = row.toolStatus;
  if (row.usage !== null) message.usage = row.usage;
  if (row.providerState !== null) message.providerState = row.providerState;
  return message;
}

export const COLUMNS =
  "id, agent_id, seq, role, content, name, tool_calls, tool_call_id, tool_status, usage, provider_state, token_count, created_at";
export const PLACEHOLDERS = `(${COLUMNS.split(",")
  .map(() => "?")
  .join(", ")})`;
export const INSERT_CHUNK = 200;

/** Maps a raw `SELECT *` row (snake_case, JSON as text) to a drizzle-shaped row. */
export function fromRaw(row: Row): MessageRow {
  return {
    id: String(row.id),
    agentId: String(row.agent_id),
    seq: Number(row.seq),
    role: String(row.role) as MessageRow["role"],
    content: parsed<MessageRow["content"]>(row.content),
    name: textOrNull(row.name),
    toolCalls: parsed<NonNullable<MessageRow["toolCalls"]>>(row.tool_calls),
    toolCallId: textOrNull(row.tool_call_id),
    toolStatus: textOrNull(row.tool_status) as MessageRow["toolStatus"],
    usage: parsed<NonNullable<MessageRow["usage"]>>(row.usage),
    providerState: parsed<NonNullable<MessageRow["providerState"]>>(row.provider_state),
    tokenCount: Number(row.token_count),
    createdAt: Number(row.created_at),
  };
}

/** The row of a new fact (seq filled in by the caller or by the insert itself). */
export function rowOf(
  context: StoreContext,
  agentId: string,
  input: MessageInput,
  seq: number,
  now: number,
): MessageRow {
  return {
    id: input.id ?? newId(now),
    agentId,
    seq,
    role: input.role,
    content: input.content,
    name: input.name ?? null,
    toolCalls: input.toolCalls ?? null,
    toolCallId: input.toolCallId ?? null,
    toolStatus: input.toolStatus ?? null,
    usage: input.usage ?? null,
    providerState: input.providerState ?? null,
    tokenCount: input.tokenCount ?? context.countTokens(input),
    createdAt: now,
  };
}

/** A row's values in COLUMNS order, JSON columns as text. */
export function argsOf(row: MessageRow): Array<string | number | null> {
  return [
    row.id,
    row.agentId,
    row.seq,
    row.role,
    json(row.content),
    row.name,
    json(row.toolCalls),
    row.toolCallId,
    row.toolStatus,
    json(row.usage),
    json(row.providerState),
    row.tokenCount,
    row.createdAt,
  ];
}
