import type { KeyboardEvent } from "react";
import type { AgentNode, ThreadState } from "../state/thread-state.ts";
import type { ShownEntry } from "../state/transcript-view.ts";

/** Entries after the one last seen (by key); none when it is no longer shown. */
export function newSince(shown: readonly ShownEntry[], lastKey: string | null): number {
  if (lastKey === null) return 0;
  for (let index = shown.length - 1; index >= 0; index--) {
    if (shown[index]?.key === lastKey) return shown.length - 1 - index;
  }
  return 0;
}

/** True when a key press is typing into a field. */
export function inField(target: EventTarget): boolean {
  return (target as HTMLElement).closest("input, textarea, select") !== null;
}

/** Sub-agents by the spawn_agents call that created them. */
export function spawnedByCall(agents: ThreadState["agents"]): Record<string, AgentNode[]> {
  const byCall: Record<string, AgentNode[]> = {};
  for (const agent of Object.values(agents)) {
    if (!agent.spawnCallId) continue;
    byCall[agent.spawnCallId] = [...(byCall[agent.spawnCallId] ?? []), agent];
  }
  return byCall;
}

/** What arrow keys move between: every entry, and every tool call inside one (its one-line summary). */
const ITEMS = '[data-entry], [data-testid="tool-call"] > summary';
/** Controls inside entries: only those of the entry the reader is on stay in the tab order. */
const CONTROLS = "button, summary, a[href], input, select, textarea";

/**
 * Roving tab stops: the transcript is one tab stop (arrow keys move inside it); the controls of the entry
 * the reader is on are reachable with Tab, those of every other drawn entry are not (tabindex -1), so Tab
 * leaves the transcript in a few presses whatever its length.
 */
export function roveTabStops(list: HTMLElement | null, activeKey: string | null) {
  if (!list) return;
  for (const control of list.querySelectorAll<HTMLElement>(CONTROLS)) {
    if (control.hasAttribute("data-entry")) continue;
    const inActive =
      activeKey !== null && control.closest("[data-vkey]")?.getAttribute("data-vkey") === activeKey;
    if (inActive) {
      if (control.hasAttribute("data-roved")) {
        control.removeAttribute("tabindex");
        control.removeAttribute("data-roved");
      }
    } else if (control.getAttribute("tabindex") !== "-1") {
      control.setAttribute("tabindex", "-1");
      control.setAttribute("data-roved", "");
    }
  }
}

/** Arrow keys (and j/k) move focus between entries and tool calls; Home and End go to the first and last. */
export function moveFocus(event: KeyboardEvent<HTMLDivElement>) {
  const keys: Record<string, number> = {
    ArrowDown: 1,
    j: 1,
    ArrowUp: -1,
    k: -1,
    Home: -Infinity,
    End: Infinity,
  };
  const step = keys[event.key];
  if (step === undefined || inField(event.target)) return;
  const items = [...event.currentTarget.querySelectorAll<HTMLElement>(ITEMS)];
  if (items.length === 0) return;
  event.preventDefault();
  const current = items.indexOf(document.activeElement as HTMLElement);
  const next =
    step === -Infinity
      ? 0
      : step === Infinity
        ? items.length - 1
        : Math.min(items.length - 1, Math.max(0, current === -1 ? items.length - 1 : current + step));
  items[next]?.focus();
}
