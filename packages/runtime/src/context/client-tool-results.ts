import type { MessageContent, ModelProfile, StoredMessage } from "@longrun/protocol";
import { limitOutput, outputLimitFor } from "../tools/limit-output.ts";

/**
 * A gateway conversation's tool results as the projection sees them: each capped like the results of
 * longrun's own tools (outputLimitFor: ~15 % of the window, at most 16,000 characters), its head and
 * tail kept around a marker that says how much was cut. A client runs its tools itself and sends what
 * they printed whole, so one `find` over a big tree could otherwise fill the window on its own and end
 * the session. The facts keep what the client sent; only the copy the projection is built from is cut,
 * the same way on every turn, so the request stays cache-stable.
 */
export function capClientToolResults(
  facts: readonly StoredMessage[],
  profile: Pick<ModelProfile, "maxInputTokens">,
): StoredMessage[] {
  const limit = outputLimitFor(profile);
  return facts.map((fact) => {
    if (fact.role !== "tool") return fact;
    const content = capContent(fact.content, limit);
    // The stored count measured the whole result: a cut copy is counted again.
    return content === fact.content ? fact : { ...fact, content, tokenCount: 0 };
  });
}

function capContent(content: MessageContent, limit: number): MessageContent {
  if (typeof content === "string") return content.length > limit ? limitOutput(content, limit) : content;
  if (!Array.isArray(content)) return content;
  const texts = content.filter((part) => part.type === "text");
  const total = texts.reduce((sum, part) => sum + part.text.length, 0);
  if (total <= limit) return content;
  // Each text part gets its share of the cap, in proportion to its length.
  return content.map((part) =>
    part.type === "text"
      ? {
          ...part,
          text: limitOutput(part.text, Math.max(1_000, Math.floor((limit * part.text.length) / total))),
        }
      : part,
  );
}
