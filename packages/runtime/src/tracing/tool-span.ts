import { SpanStatusCode } from "@opentelemetry/api";
import type { ToolCallRequest, ToolResult } from "../tools/types.ts";
import { inSpan } from "./spans.ts";

/**
 * One tool call as a GenAI `execute_tool <name>` span, a child of the step that runs it. A result with
 * status error (the tool failed, bad arguments) sets the span's status to error; a cancel does not.
 */
export function toolSpan(call: ToolCallRequest, run: () => Promise<ToolResult>): Promise<ToolResult> {
  return inSpan(
    `execute_tool ${call.name}`,
    {
      attributes: {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": call.name,
        "gen_ai.tool.call.id": call.id,
        "gen_ai.tool.type": "function",
      },
    },
    async (span) => {
      const result = await run();
      span.setAttribute("longrun.tool.status", result.status);
      if (result.status === "error") span.setStatus({ code: SpanStatusCode.ERROR, message: "tool error" });
      return result;
    },
  );
}
