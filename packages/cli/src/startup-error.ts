/** A dependency a process needs could not be reached at start: one line per dependency. */
export class StartupError extends Error {
  constructor(
    readonly role: string,
    readonly problems: string[],
  ) {
    super(`longrun ${role} cannot start:\n${problems.map((problem) => `  - ${problem}`).join("\n")}`);
    this.name = "StartupError";
  }
}
