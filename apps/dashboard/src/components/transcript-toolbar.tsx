import type { TranscriptFilter } from "../state/transcript-view.ts";

const FILTERS: { value: TranscriptFilter; label: string }[] = [
  { value: "all", label: "Everything" },
  { value: "tools", label: "Tool calls" },
  { value: "errors", label: "Errors" },
  { value: "compactions", label: "Compactions" },
  { value: "runs", label: "Run ends" },
];

/** Search and filters over the selected agent's transcript (choose the agent in the tree). */
export function TranscriptToolbar({
  query,
  filter,
  matches,
  total,
  onQuery,
  onFilter,
}: {
  query: string;
  filter: TranscriptFilter;
  matches: number;
  total: number;
  onQuery: (query: string) => void;
  onFilter: (filter: TranscriptFilter) => void;
}) {
  const narrowed = query.trim() !== "" || filter !== "all";
  return (
    <div className="transcript-toolbar" data-testid="transcript-toolbar">
      <input
        type="search"
        aria-label="Search the transcript"
        placeholder="Search…"
        data-testid="transcript-search"
        value={query}
        onChange={(event) => onQuery(event.target.value)}
      />
      <select
        aria-label="Show"
        data-testid="transcript-filter"
        value={filter}
        onChange={(event) => onFilter(event.target.value as TranscriptFilter)}
      >
        {FILTERS.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      {narrowed && (
        <span className="muted small" data-testid="transcript-matches" role="status">
          {matches} of {total}
        </span>
      )}
    </div>
  );
}
