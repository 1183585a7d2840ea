import { z } from "zod";

const Block = z.looseObject({ type: z.string() });
const Content = z.union([z.string(), z.array(Block)]);

const MessageIn = z.looseObject({
  // `system` inside `messages`: Claude Code's mid-conversation system entries (beta
  // mid-conversation-system-2026-04-07).
  role: z.enum(["user", "assistant", "system"]),
  content: Content,
});

const ToolIn = z.looseObject({
  name: z.string().min(1),
  type: z.string().nullable().optional(),
  description: z.string().optional(),
  input_schema: z.unknown().optional(),
});

const ContextEdit = z.looseObject({ type: z.string() });

const fields = {
  model: z.string().min(1),
  messages: z.array(MessageIn).min(1),
  system: Content.optional(),
  tools: z.array(ToolIn).optional(),
  tool_choice: z
    .looseObject({
      type: z.enum(["auto", "any", "tool", "none"]),
      name: z.string().optional(),
      disable_parallel_tool_use: z.boolean().optional(),
    })
    .optional(),
  thinking: z.looseObject({ type: z.string() }).optional(),
  context_management: z
    .looseObject({ edits: z.array(ContextEdit).optional() })
    .nullable()
    .optional(),
  metadata: z.looseObject({ user_id: z.string().nullable().optional() }).optional(),
};

/** An Anthropic Messages request as clients send it (unknown fields are kept and ignored). */
export const MessagesRequestBody = z.looseObject({
  ...fields,
  max_tokens: z.number().int().positive(),
  stream: z.boolean().optional(),
  temperature: z.number().optional(),
  top_p: z.number().optional(),
  stop_sequences: z.array(z.string()).optional(),
});
export type MessagesRequestBody = z.infer<typeof MessagesRequestBody>;

/** `POST /v1/messages/count_tokens`: the same input, without the answer's options. */
export const CountTokensRequestBody = z.looseObject(fields);
export type CountTokensRequestBody = z.infer<typeof CountTokensRequestBody>;

/** A content block as it arrives (fields are read defensively: the schema keeps them loose). */
export type WireBlock = z.infer<typeof Block> & Record<string, unknown>;
