import { z } from "zod";

/** One function call requested by an assistant message (Chat Completions shape). */
export const ToolCall = z.object({
  id: z.string().min(1),
  type: z.literal("function"),
  function: z.object({ name: z.string().min(1), arguments: z.string() }),
});
export type ToolCall = z.infer<typeof ToolCall>;

/** Outcome of a tool call as recorded on its result message. */
export const ToolStatus = z.enum(["ok", "error", "cancelled"]);
export type ToolStatus = z.infer<typeof ToolStatus>;

export const Role = z.enum(["system", "user", "assistant", "tool"]);
export type Role = z.infer<typeof Role>;

export const TextPart = z.object({ type: z.literal("text"), text: z.string() });
export const ImagePart = z.object({
  type: z.literal("image_url"),
  image_url: z.object({ url: z.string(), detail: z.enum(["auto", "low", "high"]).optional() }),
});
export const ContentPart = z.discriminatedUnion("type", [TextPart, ImagePart]);
export type ContentPart = z.infer<typeof ContentPart>;

export const MessageContent = z.union([z.string(), z.array(ContentPart), z.null()]);
export type MessageContent = z.infer<typeof MessageContent>;

/** Provider-reported usage of one completed request. */
export const Usage = z.object({
  promptTokens: z.number().int().nonnegative(),
  completionTokens: z.number().int().nonnegative(),
  reasoningTokens: z.number().int().nonnegative().optional(),
  cachedTokens: z.number().int().nonnegative().optional(),
  /** Of promptTokens, those written to the provider's cache (Anthropic's cache_creation_input_tokens). */
  cacheWriteTokens: z.number().int().nonnegative().optional(),
  totalTokens: z.number().int().nonnegative(),
});
export type Usage = z.infer<typeof Usage>;

/**
 * A reasoning item as providers return it on an assistant message
 * (OpenRouter-style `reasoning_details`). `encrypted` items are only valid
 * inside the request chain that produced them.
 */
/**
 * `format` says whose item it is (OpenRouter's names: "openai-responses-v1" for a Responses reasoning
 * item, "anthropic-claude-v1" for a thinking block); `signature` is an Anthropic thinking block's.
 */
const ReasoningOrigin = { id: z.string().optional(), format: z.string().optional() };
export const ReasoningDetail = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("reasoning.text"),
    text: z.string(),
    signature: z.string().optional(),
    ...ReasoningOrigin,
  }),
  z.object({ type: z.literal("reasoning.summary"), summary: z.string(), ...ReasoningOrigin }),
  z.object({ type: z.literal("reasoning.encrypted"), data: z.string(), ...ReasoningOrigin }),
]);
export type ReasoningDetail = z.infer<typeof ReasoningDetail>;

/** Provider-private data kept beside a fact; never sent outside its request chain. */
export const ProviderState = z.object({
  reasoningDetails: z.array(ReasoningDetail).optional(),
  reasoningContent: z.string().optional(),
  responseId: z.string().optional(),
  /**
   * The compaction in force when the provider issued this state (null: none yet). Replayed only while
   * that compaction is still the one in force: its request chain (absent on older facts: treated as null).
   */
  issuedOnCompactionId: z.string().nullable().optional(),
});
export type ProviderState = z.infer<typeof ProviderState>;

/** The fields a message carries before the store gives it an id and a seq. */
export const NewMessage = z.object({
  role: Role,
  content: MessageContent,
  name: z.string().optional(),
  toolCalls: z.array(ToolCall).optional(),
  toolCallId: z.string().optional(),
  toolStatus: ToolStatus.optional(),
  usage: Usage.optional(),
  providerState: ProviderState.optional(),
});
export type NewMessage = z.infer<typeof NewMessage>;

/** A conversation fact as stored in the append-only `messages` table. */
export const StoredMessage = NewMessage.extend({
  id: z.string(),
  agentId: z.string(),
  seq: z.number().int().nonnegative(),
  tokenCount: z.number().int().nonnegative(),
  createdAt: z.number().int(),
});
export type StoredMessage = z.infer<typeof StoredMessage>;

/** A message in Chat Completions wire shape, as sent to a provider. */
export const ChatMessage = z.object({
  role: Role,
  content: MessageContent,
  name: z.string().optional(),
  tool_calls: z.array(ToolCall).optional(),
  tool_call_id: z.string().optional(),
  reasoning_details: z.array(ReasoningDetail).optional(),
  reasoning_content: z.string().optional(),
});
export type ChatMessage = z.infer<typeof ChatMessage>;

/** Text of a message's content, images left out. */
export function contentText(content: MessageContent): string {
  if (content === null) return "";
  if (typeof content === "string") return content;
  return content.map((part) => (part.type === "text" ? part.text : "")).join("");
}
