export { compactThroughQueue, type GatewayCompactionOutcome } from "./gateway-compaction.ts";
export { GatewayError, type GatewayErrorCode } from "./gateway-error.ts";
export {
  COMPACTION_HEADER,
  type GatewayOptions,
  type LiveEventSource,
  MAX_INPUT_TOKENS_HEADER,
} from "./gateway-options.ts";
export {
  type GatewayTurnInput,
  type GatewayTurnResult,
  runGatewayTurn,
  type TurnSink,
} from "./gateway-turn.ts";
