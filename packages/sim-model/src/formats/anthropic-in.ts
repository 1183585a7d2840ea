import type { WireContent, WireImagePart, WireMessage, WireTextPart, WireTool } from "../wire.ts";
import { isRecord } from "./format-result.ts";
import { verifyRedacted, verifyThinking } from "./thinking-signature.ts";

/** A request the Messages endpoint refuses: status, error type and message (Anthropic's envelope). */
export interface AnthropicRefusal {
  status: number;
  type: string;
  message: string;
}

const refuse = (message: string, status = 400, type = "invalid_request_error"): AnthropicRefusal => ({
  status,
  type,
  message,
});

const MAX_BREAKPOINTS = 4;

type Block = Record<string, unknown>;

function blocksOf(content: unknown): Block[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return Array.isArray(content) ? content.filter(isRecord) : [];
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  return blocksOf(content)
    .map((block) => (block.type === "text" && typeof block.text === "string" ? block.text : ""))
    .join("");
}

function breakpoints(body: Record<string, unknown>): number {
  let count = 0;
  const visit = (blocks: unknown) => {
    if (Array.isArray(blocks))
      for (const block of blocks) if (isRecord(block) && block.cache_control) count++;
  };
  visit(body.system);
  visit(body.tools);
  for (const message of Array.isArray(body.messages) ? body.messages : [])
    if (isRecord(message)) visit(message.content);
  return count;
}

function toolUseIds(blocks: Block[]): string[] {
  return blocks.flatMap((block) => (block.type === "tool_use" ? [String(block.id)] : []));
}

/** The rules a real Messages endpoint enforces that longrun's projection must keep (first broken wins). */
function checkRules(body: Record<string, unknown>, secret: string): AnthropicRefusal | undefined {
  if (typeof body.max_tokens !== "number") return refuse("max_tokens: Field required");
  const messages = (body.messages as unknown[]).filter(isRecord);
  const found = breakpoints(body);
  if (found > MAX_BREAKPOINTS)
    return refuse(
      `A maximum of ${MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${found}.`,
    );
  const thinking = isRecord(body.thinking) && body.thinking.type === "enabled";
  if (thinking) {
    const budget = (body.thinking as { budget_tokens?: unknown }).budget_tokens;
    if (typeof budget !== "number" || budget < 1024)
      return refuse("thinking.enabled.budget_tokens: Input should be greater than or equal to 1024");
    if (budget >= (body.max_tokens as number))
      return refuse("`max_tokens` must be greater than `thinking.budget_tokens`.");
  }
  for (const [index, message] of messages.entries()) {
    const blocks = blocksOf(message.content);
    for (const [at, block] of blocks.entries()) {
      if (
        block.type === "thinking" &&
        !verifyThinking(secret, String(block.thinking), String(block.signature))
      )
        return refuse(`messages.${index}.content.${at}: Invalid \`signature\` in \`thinking\` block`);
      if (block.type === "redacted_thinking" && !verifyRedacted(secret, String(block.data)))
        return refuse(`messages.${index}.content.${at}: Invalid \`data\` in \`redacted_thinking\` block`);
      if (block.type === "text" && block.text === "")
        return refuse(`messages.${index}.content.${at}.text: text content blocks must be non-empty`);
    }
    if (message.role === "assistant") {
      const uses = toolUseIds(blocks);
      if (uses.length === 0) continue;
      const next = messages[index + 1];
      const following = next?.role === "user" ? blocksOf(next.content) : [];
      const cut = following.findIndex((block) => block.type !== "tool_result");
      const leading = cut === -1 ? following : following.slice(0, cut);
      const answered = new Set(leading.map((block) => String(block.tool_use_id)));
      const missing = uses.filter((id) => !answered.has(id));
      if (missing.length > 0)
        return refuse(
          `messages.${index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
        );
    } else {
      const previous = messages[index - 1];
      const made = new Set(previous?.role === "assistant" ? toolUseIds(blocksOf(previous.content)) : []);
      for (const [at, block] of blocks.entries())
        if (block.type === "tool_result" && !made.has(String(block.tool_use_id)))
          return refuse(
            `messages.${index}.content.${at}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(block.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
          );
    }
  }
  const last = messages.at(-1);
  const previous = messages.at(-2);
  const inFlight =
    last?.role === "user" &&
    previous?.role === "assistant" &&
    blocksOf(last.content).some((block) => block.type === "tool_result");
  if (thinking && inFlight) {
    const first = blocksOf(previous?.content)[0]?.type;
    if (first !== "thinking" && first !== "redacted_thinking")
      return refuse(
        `messages.${messages.length - 2}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking`,
      );
  }
  return undefined;
}

function userContent(blocks: Block[]): WireContent {
  const parts = blocks.flatMap((block): Array<WireTextPart | WireImagePart> => {
    if (block.type === "text" && typeof block.text === "string")
      return [{ type: "text" as const, text: block.text }];
    if (block.type === "image" && isRecord(block.source)) {
      const source = block.source;
      const url =
        source.type === "url"
          ? String(source.url)
          : `data:${String(source.media_type)};base64,${String(source.data)}`;
      return [{ type: "image_url" as const, image_url: { url } }];
    }
    return [];
  });
  const texts = parts.flatMap((part) => (part.type === "text" ? [part.text] : []));
  return texts.length === parts.length ? texts.join("") : parts;
}

/**
 * The strict rules of a Messages request, then its conversation as Chat Completions messages (thinking
 * kept as reasoning text, which no chain binds: Anthropic checks a thinking block's signature only).
 */
export function anthropicToWire(
  body: Record<string, unknown>,
  secret: string,
): AnthropicRefusal | { messages: WireMessage[]; tools: WireTool[]; thinking: boolean } {
  if (!Array.isArray(body.messages)) return refuse("messages: Field required");
  const broken = checkRules(body, secret);
  if (broken) return broken;
  const messages: WireMessage[] = [];
  const system = textOf(body.system);
  if (system) messages.push({ role: "system", content: system });
  for (const message of body.messages.filter(isRecord)) {
    const blocks = blocksOf(message.content);
    if (message.role === "assistant") {
      const text = blocks.map((block) => (block.type === "text" ? String(block.text) : "")).join("");
      const calls = blocks.flatMap((block) =>
        block.type === "tool_use"
          ? [
              {
                id: String(block.id),
                type: "function" as const,
                function: { name: String(block.name), arguments: JSON.stringify(block.input ?? {}) },
              },
            ]
          : [],
      );
      const thoughts = blocks.flatMap((block) =>
        block.type === "thinking"
          ? [{ type: "reasoning.text", text: String(block.thinking) }]
          : block.type === "redacted_thinking"
            ? [{ type: "reasoning.text", text: "" }]
            : [],
      );
      messages.push({
        role: "assistant",
        content: text || null,
        ...(calls.length > 0 ? { tool_calls: calls } : {}),
        ...(thoughts.length > 0 ? { reasoning_details: thoughts } : {}),
      });
    } else {
      for (const block of blocks)
        if (block.type === "tool_result")
          messages.push({
            role: "tool",
            tool_call_id: String(block.tool_use_id),
            content: textOf(block.content),
          });
      const rest = blocks.filter((block) => block.type !== "tool_result");
      if (rest.length > 0) messages.push({ role: "user", content: userContent(rest) });
    }
  }
  const tools: WireTool[] = (Array.isArray(body.tools) ? body.tools : []).filter(isRecord).map((tool) => ({
    type: "function",
    function: {
      name: String(tool.name),
      ...(typeof tool.description === "string" ? { description: tool.description } : {}),
      parameters: tool.input_schema,
    },
  }));
  const thinking = isRecord(body.thinking) && body.thinking.type === "enabled";
  return { messages, tools, thinking };
}
