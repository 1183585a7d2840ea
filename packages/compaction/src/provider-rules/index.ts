export {
  type AnthropicBlock,
  type AnthropicRequestParts,
  type AnthropicTurn,
  anthropicViolations,
  toAnthropicRequest,
} from "./anthropic-request.ts";
export { ANTHROPIC_REASONING_FORMAT, RESPONSES_REASONING_FORMAT } from "./formats.ts";
export { type ResponsesInputItem, responsesViolations, toResponsesInput } from "./responses-request.ts";
