/** One model in an OpenAI `GET /v1/models` list. */
export interface ModelEntry {
  id: string;
  object: "model";
  created: number;
  owned_by: string;
}

/** The OpenAI list shape `{object: "list", data: [...]}` (extra fields per entry are allowed). */
export function modelsList<Entry extends ModelEntry>(entries: Entry[]): { object: "list"; data: Entry[] } {
  return { object: "list", data: entries };
}
