import type Anthropic from "@anthropic-ai/sdk";
import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import type OpenAI from "openai";

/** One history item, as the client keeps it (Chat Completions form; each shape sends its own API's form). */
export interface Item {
  role: "user" | "assistant" | "tool";
  content: string;
  toolCalls?: Array<{ id: string; name: string; arguments: string }>;
  toolCallId?: string;
}

/** What the gateway answered, and the size it told the client. */
export interface Reply {
  text: string;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  /** Prompt plus completion tokens as reported: what the client compares with its threshold. */
  reportedTokens: number;
}

/** The clients a shape talks to longrun through. */
export interface Clients {
  openai: OpenAI;
  anthropic: Anthropic;
  model: string;
  /** Headers every request of the run carries (the longrun window). */
  headers: Record<string, string>;
}

/**
 * A coding-agent client as longrun sees it: its API, system prompt and session signals, its own
 * compaction request, and the history it rebuilds around the summary it gets back. Modeled on what
 * Codex, opencode, pi, qwen-code and Claude Code send (their own prompts are paraphrased, their
 * shapes kept).
 */
export interface ClientShape {
  name: string;
  /** The client compacts when its estimate passes this share of its window. */
  threshold: number;
  /** The start of the history: environment and task messages. */
  start(): Item[];
  turn(clients: Clients, history: Item[], tools: ChatTool[]): Promise<Reply>;
  compact(clients: Clients, history: Item[], tools: ChatTool[]): Promise<Reply>;
  rebuild(history: Item[], summary: string): Item[];
}

export type ChatTool = OpenAI.ChatCompletionFunctionTool;

const TASK = "Explore this project and report what each module does.";
const CONTINUE = "Continue if you have next steps.";

function chatMessages(system: string, history: Item[]): OpenAI.ChatCompletionMessageParam[] {
  return [
    { role: "system", content: system },
    ...history.map((item): OpenAI.ChatCompletionMessageParam => {
      if (item.role === "tool")
        return { role: "tool", tool_call_id: item.toolCallId!, content: item.content };
      if (item.role === "user") return { role: "user", content: item.content };
      return {
        role: "assistant",
        content: item.content || null,
        ...(item.toolCalls?.length
          ? {
              tool_calls: item.toolCalls.map((call) => ({
                id: call.id,
                type: "function" as const,
                function: { name: call.name, arguments: call.arguments },
              })),
            }
          : {}),
      };
    }),
  ];
}

async function chatTurn(
  clients: Clients,
  request: { system: string; history: Item[]; tools: ChatTool[]; headers?: Record<string, string> },
): Promise<Reply> {
  const completion = await clients.openai.chat.completions.create(
    {
      model: clients.model,
      messages: chatMessages(request.system, request.history),
      ...(request.tools.length ? { tools: request.tools } : {}),
    },
    { headers: { ...clients.headers, ...request.headers } },
  );
  const message = completion.choices[0]!.message;
  return {
    text: message.content ?? "",
    toolCalls: (message.tool_calls ?? []).flatMap((call) =>
      call.type === "function"
        ? [{ id: call.id, name: call.function.name, arguments: call.function.arguments }]
        : [],
    ),
    reportedTokens: (completion.usage?.prompt_tokens ?? 0) + (completion.usage?.completion_tokens ?? 0),
  };
}

/** The conversation written out as text, the way opencode and pi put it into their summary requests. */
function transcript(history: Item[]): string {
  return history
    .map((item) => {
      if (item.role === "tool") return `[Tool result]: ${item.content.slice(0, 2_000)}`;
      const calls = (item.toolCalls ?? []).map((call) => `[Tool call]: ${call.name}(${call.arguments})`);
      const label = item.role === "user" ? "[User]" : "[Assistant]";
      return [item.content ? `${label}: ${item.content}` : "", ...calls].filter(Boolean).join("\n");
    })
    .join("\n");
}

/** Codex CLI: Responses API, session in prompt_cache_key, its checkpoint prompt with `tools: []`. */
function codex(): ClientShape {
  const developer = "You are Codex, a coding agent. Be concise.";
  const environment = "<environment_context>\n  <cwd>/work/codex-project</cwd>\n</environment_context>";
  const input = (history: Item[]): OpenAI.Responses.ResponseInputItem[] => [
    { type: "message", role: "developer", content: developer },
    ...history.flatMap((item): OpenAI.Responses.ResponseInputItem[] => {
      if (item.role === "tool") {
        return [{ type: "function_call_output", call_id: item.toolCallId!, output: item.content }];
      }
      if (item.role === "user") return [{ type: "message", role: "user", content: item.content }];
      return [
        ...(item.content
          ? [{ type: "message" as const, role: "assistant" as const, content: item.content }]
          : []),
        ...(item.toolCalls ?? []).map((call) => ({
          type: "function_call" as const,
          call_id: call.id,
          name: call.name,
          arguments: call.arguments,
        })),
      ];
    }),
  ];
  const send = async (
    clients: Clients,
    history: Item[],
    tools: ChatTool[],
    headers: Record<string, string>,
  ) => {
    const response = await clients.openai.responses.create(
      {
        model: clients.model,
        input: input(history),
        tools: tools.map((tool) => ({
          type: "function" as const,
          name: tool.function.name,
          parameters: tool.function.parameters ?? null,
          strict: false,
        })),
        prompt_cache_key: "codex-session-1",
        store: false,
      },
      { headers: { ...clients.headers, ...headers } },
    );
    const calls = response.output.flatMap((item) =>
      item.type === "function_call" ? [{ id: item.call_id, name: item.name, arguments: item.arguments }] : [],
    );
    return {
      text: response.output_text,
      toolCalls: calls,
      reportedTokens: response.usage?.total_tokens ?? 0,
    };
  };
  return {
    name: "codex",
    threshold: 0.9,
    start: () => [
      { role: "user", content: environment },
      { role: "user", content: TASK },
    ],
    turn: (clients, history, tools) => send(clients, history, tools, {}),
    compact: (clients, history) =>
      send(
        clients,
        [
          ...history,
          {
            role: "user",
            content:
              "You are performing a CONTEXT CHECKPOINT COMPACTION. Create a handoff summary for another LLM that will resume the task.",
          },
        ],
        [],
        { "x-codex-turn-metadata": JSON.stringify({ request_kind: "compaction" }) },
      ),
    rebuild: (history, summary) => [
      ...history.slice(0, 2),
      {
        role: "user",
        content: `Another language model started to solve this problem and produced a summary of its thinking process:\n${summary}`,
      },
      { role: "user", content: CONTINUE },
    ],
  };
}

/** opencode: Chat Completions, `x-session-id`, a summarization agent given the conversation as text. */
function opencode(): ClientShape {
  const system =
    "You are opencode, an interactive CLI coding agent.\n<env>\n  Working directory: /work/opencode-project\n</env>";
  const headers = { "x-session-id": "ses_opencode_1" };
  return {
    name: "opencode",
    threshold: 0.75,
    start: () => [{ role: "user", content: TASK }],
    turn: (clients, history, tools) => chatTurn(clients, { system, history, tools, headers }),
    compact: (clients, history) =>
      chatTurn(clients, {
        system: "You are a context summarization agent. Summarize the conversation you are given.",
        history: [{ role: "user", content: `${transcript(history)}\n\nSummarize the conversation above.` }],
        tools: [],
        headers,
      }),
    rebuild: (_history, summary) => [
      { role: "user", content: "What did we do so far?" },
      { role: "assistant", content: summary },
      { role: "user", content: CONTINUE },
    ],
  };
}

/** pi over Chat Completions: no session id at all; a `<conversation>` transcript to summarize. */
function pi(): ClientShape {
  const system =
    "You are an expert coding assistant operating inside pi.\nCurrent working directory: /work/pi-project";
  return {
    name: "pi",
    threshold: 0.8,
    start: () => [{ role: "user", content: TASK }],
    turn: (clients, history, tools) => chatTurn(clients, { system, history, tools }),
    compact: (clients, history) =>
      chatTurn(clients, {
        system:
          "You are a context summarization assistant. Read the conversation and produce a structured summary. Do NOT continue the conversation.",
        history: [
          {
            role: "user",
            content: `<conversation>\n${transcript(history)}\n</conversation>\n\nThe messages above are a conversation to summarize. Create a structured context checkpoint summary.`,
          },
        ],
        tools: [],
      }),
    rebuild: (_history, summary) => [
      {
        role: "user",
        content: `The conversation history before this point was compacted into the following summary:\n\n<summary>\n${summary}\n</summary>`,
      },
      { role: "user", content: CONTINUE },
    ],
  };
}

/** qwen-code / Gemini CLI: no session id, the directory in an environment message, a `<state_snapshot>` ask. */
function qwen(): ClientShape {
  const system = "You are Qwen Code, an interactive CLI agent specializing in software engineering tasks.";
  return {
    name: "qwen",
    threshold: 0.7,
    start: () => [
      {
        role: "user",
        content:
          "This is the Qwen Code. We are setting up the context for our chat. My operating system is: linux\nI'm currently working in the directory: /work/qwen-project",
      },
      { role: "assistant", content: "Got it. Thanks for the context!" },
      { role: "user", content: TASK },
    ],
    turn: (clients, history, tools) => chatTurn(clients, { system, history, tools }),
    compact: (clients, history) =>
      chatTurn(clients, {
        system: "You are the component that summarizes internal chat history into a given structure.",
        history: [
          ...history,
          { role: "user", content: "First, reason in your scratchpad. Then, generate the <state_snapshot>." },
        ],
        tools: [],
      }),
    rebuild: (_history, summary) => [
      { role: "user", content: summary },
      { role: "assistant", content: "Got it. Thanks for the additional context!" },
      { role: "user", content: CONTINUE },
    ],
  };
}

/** Claude Code: Anthropic Messages, the session in `metadata.user_id`, its summary ask with tools kept. */
function claudeCode(): ClientShape {
  const system = [
    { type: "text" as const, text: "You are Claude Code, Anthropic's official CLI for Claude." },
    { type: "text" as const, text: "<env>\nWorking directory: /work/claude-project\n</env>" },
  ];
  const metadata = { user_id: JSON.stringify({ device_id: "d1", session_id: "claude-session-1" }) };
  const messagesOf = (history: Item[]): MessageParam[] => {
    const messages: MessageParam[] = [];
    for (const item of history) {
      if (item.role === "tool") {
        const block = { type: "tool_result" as const, tool_use_id: item.toolCallId!, content: item.content };
        const last = messages.at(-1);
        if (last?.role === "user" && Array.isArray(last.content) && last.content[0]?.type === "tool_result") {
          last.content.push(block);
        } else messages.push({ role: "user", content: [block] });
      } else if (item.role === "user") messages.push({ role: "user", content: item.content });
      else {
        messages.push({
          role: "assistant",
          content: [
            ...(item.content ? [{ type: "text" as const, text: item.content }] : []),
            ...(item.toolCalls ?? []).map((call) => ({
              type: "tool_use" as const,
              id: call.id,
              name: call.name,
              input: JSON.parse(call.arguments || "{}") as Record<string, unknown>,
            })),
          ],
        });
      }
    }
    return messages;
  };
  const send = async (clients: Clients, history: Item[], tools: ChatTool[]): Promise<Reply> => {
    const message = await clients.anthropic.messages.create(
      {
        model: clients.model,
        max_tokens: 2_048,
        system,
        metadata,
        tools: tools.map((tool) => ({
          name: tool.function.name,
          description: tool.function.description ?? "",
          input_schema: (tool.function.parameters ?? { type: "object" }) as Anthropic.Tool.InputSchema,
        })),
        messages: messagesOf(history),
      },
      { headers: clients.headers },
    );
    const usage = message.usage;
    return {
      text: message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join(""),
      toolCalls: message.content.flatMap((block) =>
        block.type === "tool_use"
          ? [{ id: block.id, name: block.name, arguments: JSON.stringify(block.input) }]
          : [],
      ),
      reportedTokens:
        usage.input_tokens +
        (usage.cache_read_input_tokens ?? 0) +
        (usage.cache_creation_input_tokens ?? 0) +
        usage.output_tokens,
    };
  };
  return {
    name: "claude-code",
    threshold: 0.8,
    start: () => [{ role: "user", content: TASK }],
    turn: send,
    compact: (clients, history, tools) =>
      send(
        clients,
        [
          ...history,
          {
            role: "user",
            content:
              "CRITICAL: Respond with TEXT ONLY. Do NOT call any tools.\n\nYour task is to create a detailed summary of the conversation so far.",
          },
        ],
        tools,
      ),
    rebuild: (_history, summary) => [
      {
        role: "user",
        content: `This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\n${summary}\nPlease continue the conversation from where we left it off.`,
      },
    ],
  };
}

/** The five client shapes the loop test drives. */
export const CLIENT_SHAPES: ReadonlyArray<() => ClientShape> = [codex, opencode, pi, qwen, claudeCode];
