import type { WireTool } from "../wire.ts";

/** What a coding agent does with a client's tool. */
export type ToolRole = "read" | "list" | "search" | "write" | "edit" | "shell";

/** What a property of a tool's arguments holds, as far as a coder is concerned. */
type Slot = "path" | "content" | "command" | "pattern" | "oldText" | "newText" | "description";

/** A JSON schema, as far as filling arguments goes. */
interface Schema {
  type?: string | string[];
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  default?: unknown;
  minimum?: number;
}

/** A client tool recognized in a role, with the argument that carries each slot. */
export interface RoleTool {
  name: string;
  role: ToolRole;
  /** Property name → slot, for the properties this role fills. */
  slots: Partial<Record<Slot, string>>;
  /** The path argument wants an absolute path (its schema says so). */
  absolutePaths: boolean;
  schema: Schema;
}

/** Tools by role, the best candidate of each; and every recognized tool by name. */
export interface ToolRoles {
  byRole: Partial<Record<ToolRole, RoleTool>>;
  byName: Map<string, RoleTool>;
}

/** Property names (lower case, `_` and `-` removed) that carry each slot, strongest first. */
const SLOT_NAMES: Record<Slot, string[]> = {
  path: ["filepath", "absolutepath", "path", "filename", "file", "targetfile", "dirpath", "directory", "dir"],
  content: ["content", "contents", "filetext", "text", "data", "body"],
  command: ["command", "cmd", "script", "commandline"],
  pattern: ["pattern", "regex", "query", "searchterm", "glob", "q"],
  oldText: ["oldstring", "oldtext", "oldstr", "old", "search", "find", "original"],
  newText: ["newstring", "newtext", "newstr", "new", "replace", "replacement", "updated"],
  description: ["description", "reason", "justification"],
};

/** The argument names used for a tool whose schema declares no properties. */
const PLAIN_NAMES: Record<Slot, string> = {
  path: "path",
  content: "content",
  command: "command",
  pattern: "pattern",
  oldText: "old_string",
  newText: "new_string",
  description: "description",
};

/** Words of a tool's name that suggest each role (the name split at case changes, `_`, `-`). */
const ROLE_WORDS: Record<ToolRole, string[]> = {
  read: ["read", "view", "cat", "open", "show"],
  list: ["list", "ls", "dir", "directory", "glob", "tree"],
  search: ["grep", "search", "rg", "ripgrep", "find"],
  write: ["write", "create", "save", "put"],
  edit: ["edit", "replace", "patch", "modify", "str"],
  shell: ["bash", "shell", "exec", "command", "terminal", "run", "sh", "execute"],
};

/** What a role's description says (when the name alone is not enough). */
const ROLE_DESCRIPTIONS: Record<ToolRole, RegExp> = {
  read: /\breads? (?:a |the )?(?:file|contents)/i,
  list: /\blists? (?:the )?(?:files|directory|entries)|\bfile pattern matching|\bglob\b/i,
  search: /\bsearch(?:es)? (?:for )?(?:a )?(?:pattern|regex|text)|\bregular expression/i,
  write: /\bwrites? (?:a |the )?(?:file|content)|\bcreates? (?:a )?(?:new )?file/i,
  edit: /\b(?:edits?|replaces?|modif(?:y|ies)) (?:text |a |the |exact )?(?:in )?(?:a |the )?(?:file|string|text)/i,
  shell: /\b(?:shell|bash|terminal) command|\bexecutes? (?:a |the )?(?:given )?(?:shell |bash )?command/i,
};

/** The slots a role needs: a tool that lacks one is not usable in that role. */
const NEEDED: Record<ToolRole, Slot[]> = {
  read: ["path"],
  list: [],
  search: ["pattern"],
  write: ["path", "content"],
  edit: ["path", "oldText", "newText"],
  shell: ["command"],
};

function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

const normalized = (property: string) => property.toLowerCase().replace(/[_-]/g, "");

function schemaOf(tool: WireTool): Schema {
  const parameters = tool.function.parameters;
  return typeof parameters === "object" && parameters !== null ? (parameters as Schema) : {};
}

/** Which property carries each slot: by name first, then (for a path) by a description naming a file. */
function slotsOf(schema: Schema): Partial<Record<Slot, string>> {
  const properties = Object.keys(schema.properties ?? {});
  const slots: Partial<Record<Slot, string>> = {};
  const taken = new Set<string>();
  for (const slot of [
    "oldText",
    "newText",
    "command",
    "path",
    "content",
    "pattern",
    "description",
  ] as Slot[]) {
    for (const wanted of SLOT_NAMES[slot]) {
      const found = properties.find((property) => !taken.has(property) && normalized(property) === wanted);
      if (found) {
        slots[slot] = found;
        taken.add(found);
        break;
      }
    }
  }
  if (!slots.path) {
    // Only a single path: an array of them (read_many_files) is another tool's business.
    const described = properties.find((property) => {
      const declared = schema.properties?.[property];
      return (
        !taken.has(property) &&
        (declared?.type === undefined || declared.type === "string") &&
        /\bpath\b/i.test(declared?.description ?? "")
      );
    });
    if (described) slots.path = described;
  }
  return slots;
}

/** Words of a name that make a tool something else than a file or shell tool (web, images, agents…). */
const OTHER_KINDS = new Set([
  "web",
  "url",
  "fetch",
  "image",
  "notebook",
  "memory",
  "todo",
  "task",
  "plan",
  "agent",
  "skill",
  "mcp",
  "cron",
  "stdin",
]);

/** How well a tool fits a role (0: not at all); its name counts most, its description next. */
function score(
  tool: WireTool,
  role: ToolRole,
  slots: Partial<Record<Slot, string>>,
  declared: boolean,
): number {
  const nameWords = words(tool.function.name);
  if (nameWords.some((word) => OTHER_KINDS.has(word))) return 0;
  const byName = ROLE_WORDS[role].some((word) => nameWords.includes(word)) ? 4 : 0;
  const byDescription = ROLE_DESCRIPTIONS[role].test((tool.function.description ?? "").slice(0, 600)) ? 2 : 0;
  if (byName + byDescription === 0) return 0;
  // A declared schema must hold what the role needs; an empty one is taken at its name's word.
  if (declared && NEEDED[role].some((slot) => !slots[slot])) return 0;
  // "find" or "search" in a shell tool's name does not make it a search tool; nor "edit" a writer.
  if (role === "search" && slots.command) return 0;
  if (role === "write" && slots.oldText) return 0;
  return byName + byDescription + Object.keys(slots).length * 0.1;
}

/**
 * Recognizes the roles of a client's tools from their names, descriptions and JSON schemas: read,
 * list, search, write, edit and shell, each with the properties its arguments go in. Each tool takes
 * the role it fits best; each role the tool that fits it best.
 */
export function recognizeToolRoles(tools: readonly WireTool[]): ToolRoles {
  const byRole: Partial<Record<ToolRole, RoleTool>> = {};
  const best: Partial<Record<ToolRole, number>> = {};
  const byName = new Map<string, RoleTool>();
  for (const tool of tools) {
    const schema = schemaOf(tool);
    const declared = Object.keys(schema.properties ?? {}).length > 0;
    const slots = slotsOf(schema);
    let chosen: { role: ToolRole; score: number } | null = null;
    for (const role of Object.keys(ROLE_WORDS) as ToolRole[]) {
      const fit = score(tool, role, slots, declared);
      if (fit > 0 && (!chosen || fit > chosen.score)) chosen = { role, score: fit };
    }
    if (!chosen) continue;
    const pathProperty = slots.path ? schema.properties?.[slots.path] : undefined;
    const pathText = `${slots.path ?? ""} ${pathProperty?.description ?? ""}`;
    const recognized: RoleTool = {
      name: tool.function.name,
      role: chosen.role,
      slots,
      absolutePaths: /absolute/i.test(pathText) && !/relative or absolute|or relative/i.test(pathText),
      schema,
    };
    byName.set(recognized.name, recognized);
    if (chosen.score > (best[chosen.role] ?? 0)) {
      best[chosen.role] = chosen.score;
      byRole[chosen.role] = recognized;
    }
  }
  return { byRole, byName };
}

/** A placeholder for a required property no slot covers, from its schema. */
function placeholder(schema: Schema | undefined): unknown {
  if (schema?.default !== undefined) return schema.default;
  if (schema?.enum?.length) return schema.enum[0];
  const type = Array.isArray(schema?.type) ? schema.type[0] : schema?.type;
  if (type === "boolean") return false;
  if (type === "integer" || type === "number") return schema?.minimum ?? 1;
  if (type === "array") return [];
  if (type === "object") return {};
  return "";
}

/**
 * The arguments of a call to a recognized tool: the slots it has filled from `values` (a command in
 * the shape its schema asks for: a string, or argv for an array), then every other `required`
 * property with a placeholder its schema allows.
 */
export function fillArguments(
  tool: RoleTool,
  values: Partial<Record<Slot, string>>,
): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  // A tool that declares no properties gets the plainest names (`path`, `content`, `command`…).
  if (Object.keys(tool.schema.properties ?? {}).length === 0) {
    for (const [slot, value] of Object.entries(values) as Array<[Slot, string]>)
      args[PLAIN_NAMES[slot]] = value;
    return args;
  }
  for (const [slot, property] of Object.entries(tool.slots) as Array<[Slot, string]>) {
    const value = values[slot];
    if (value === undefined) continue;
    const type = tool.schema.properties?.[property]?.type;
    const isArray = type === "array" || (Array.isArray(type) && type.includes("array"));
    args[property] = slot === "command" && isArray ? ["bash", "-lc", value] : value;
  }
  for (const property of tool.schema.required ?? []) {
    if (!(property in args)) args[property] = placeholder(tool.schema.properties?.[property]);
  }
  return args;
}

/** The path argument a recognized tool's call carries, if any. */
export function pathArgument(tool: RoleTool, args: Record<string, unknown>): string | undefined {
  const value = tool.slots.path ? args[tool.slots.path] : undefined;
  return typeof value === "string" ? value : undefined;
}

/** The shell command a recognized shell tool's call carries (argv: its last word), if any. */
export function commandArgument(tool: RoleTool, args: Record<string, unknown>): string | undefined {
  const value = tool.slots.command ? args[tool.slots.command] : undefined;
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(String).at(-1);
  return undefined;
}
