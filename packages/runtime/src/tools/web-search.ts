import { z } from "zod";
import { defineTool, ok, ToolError, type ToolSpec } from "./types.ts";

const SEARCH_TIMEOUT_MS = 30_000;

const WebSearchArgs = z.object({ query: z.string().min(1).max(1000).describe("What to search for.") });

const SearchResults = z.object({
  results: z.array(
    z.object({
      title: z.string().optional(),
      url: z.string().optional(),
      snippet: z.string().optional(),
      content: z.string().optional(),
    }),
  ),
});

/** web_search bound to a search endpoint that takes POST {query} and answers JSON (or text). */
export function createWebSearchTool(endpoint: string): ToolSpec<typeof WebSearchArgs> {
  return defineTool({
    name: "web_search",
    description: "Search the web. Returns titles, URLs and snippets of the top results.",
    schema: WebSearchArgs,
    async run(args, { signal }) {
      const timeout = AbortSignal.timeout(SEARCH_TIMEOUT_MS);
      const response = await fetch(endpoint, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({ query: args.query }),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      const body = await response.text();
      if (!response.ok) {
        throw new ToolError(
          "service_error",
          `The search service answered ${response.status}: ${body.slice(0, 500)}`,
        );
      }
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        return ok(body); // a plain-text answer is passed through as is
      }
      const parsed = SearchResults.safeParse(json);
      if (!parsed.success) return ok(JSON.stringify(json, null, 2));
      if (parsed.data.results.length === 0) return ok(`No results for "${args.query}"`);
      const lines = parsed.data.results.map((result, index) =>
        [`${index + 1}. ${result.title ?? "(untitled)"}`, result.url, result.snippet ?? result.content]
          .filter((line): line is string => Boolean(line))
          .join("\n   "),
      );
      return ok(lines.join("\n"));
    },
  });
}
