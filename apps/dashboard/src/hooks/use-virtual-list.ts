import { type RefObject, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";

/** Pixels drawn above and below what is visible, so a scroll shows drawn entries before new ones. */
const OVERSCAN_PX = 800;
/** Height assumed for an entry never drawn, until some entry has been measured. */
const ESTIMATE_PX = 90;
/** A list this short is drawn whole: it costs less than its bookkeeping, and find-in-page still works. */
export const DRAW_ALL_UNDER = 200;

export interface VirtualRange {
  /** First entry drawn (index into the keys). */
  first: number;
  /** One past the last entry drawn. */
  end: number;
  /** Height of the entries not drawn above and below: spacers keep the scrollbar true to the whole list. */
  padTop: number;
  padBottom: number;
}

/**
 * A virtual list for entries of unknown, changing heights: only the entries near the visible part are
 * in the page, spacers stand for the rest at their measured (or, never drawn, estimated) heights.
 *
 * `items` holds the drawn entries, each an element with `data-vkey` (its key); `scroller` scrolls it and
 * is their offset parent. While `anchored` (the reader is scrolled up) the entry at the top of the view
 * stays exactly where it is on screen, whatever changes above it: entries read in, entries measured,
 * entries that grow. While not anchored, the list draws its end (the caller keeps the view at the bottom).
 */
export function useVirtualList({
  keys,
  scroller,
  items,
  anchored,
}: {
  keys: readonly string[];
  scroller: RefObject<HTMLElement | null>;
  items: RefObject<HTMLElement | null>;
  anchored: boolean;
}) {
  const heights = useRef(new Map<string, number>());
  const [measured, setMeasured] = useState(0);
  /** The visible part, in list coordinates, as of the last scroll that moved it far enough to matter. */
  const [view, setView] = useState({ top: 0, height: 0 });
  /**
   * While anchored: the entries in view, those that start in it first, and where each was laid out.
   * When the first of them still drawn moves (something above it changed), the view moves by as much;
   * the reader's own scrolling moves no entry and is kept. More than one: an entry can go (a tool result
   * read alone is folded into its call once the call is read).
   */
  const anchor = useRef<Anchor[] | null>(null);
  /** What was drawn when the anchor was last held (drawn keys and the spacer above them). */
  const heldDrawn = useRef<string | null>(null);
  const anchoredNow = useRef(anchored);
  anchoredNow.current = anchored;
  // biome-ignore lint/correctness/useExhaustiveDependencies: `measured` counts changes to the heights
  const offsets = useMemo(() => offsetsOf(keys, heights.current), [keys, measured]);
  // While anchored, the view is where the anchor is now: entries read in above it must not push it out
  // of what is drawn before it can be held in place.
  const range = rangeOf(
    offsets,
    keys.length,
    anchored ? anchoredView(keys, offsets, anchor.current, view) : view,
    anchored,
  );

  const updateView = () => {
    const element = scroller.current;
    const list = items.current;
    if (!element || !list) return;
    const top = element.scrollTop - list.offsetTop;
    const height = element.clientHeight;
    setView((current) =>
      Math.abs(current.top - top) < OVERSCAN_PX / 3 && current.height === height ? current : { top, height },
    );
  };

  /** The drawn entries that reach into the view become the anchor. */
  const capture = () => {
    const element = scroller.current;
    const list = items.current;
    if (!element || !list) return;
    const bottom = element.scrollTop + element.clientHeight;
    const inView: Anchor[] = [];
    for (const child of list.children) {
      const item = child as HTMLElement;
      const key = item.dataset.vkey;
      if (key === undefined || item.offsetTop + item.offsetHeight <= element.scrollTop) continue;
      if (item.offsetTop >= bottom) break;
      inView.push({ key, top: item.offsetTop, delta: item.offsetTop - element.scrollTop });
    }
    // What the reader reads is what starts in the view; an entry cut by its top edge only if none does.
    // (Older messages read in can land between the two: after a compaction notice, before the first
    // message read until then.)
    // None drawn in the view (a jump past everything drawn): the view itself places what is drawn next.
    anchor.current =
      inView.length > 0
        ? [...inView.filter((at) => at.delta >= 0), ...inView.filter((at) => at.delta < 0)]
        : null;
  };
  /** Puts the anchor back where it was on screen (when what is above it changed), then takes it anew. */
  const hold = () => {
    const element = scroller.current;
    for (const at of anchor.current ?? []) {
      const item = drawnItem(items.current, at.key);
      if (!item) continue;
      if (element && item.offsetTop !== at.top) {
        element.scrollTop += item.offsetTop - at.top;
        // The view moved with it: what is drawn follows now, not at the next scroll event.
        updateView();
      }
      break;
    }
    capture();
  };
  // One observer measures every drawn entry; a change of height (first drawn, a result folded in, a
  // details element opened) is recorded, and, while anchored, the view is put back before it is painted.
  const observed = useRef(new Set<Element>());
  const observer = useRef<ResizeObserver | null>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: one observer for the list's life (it reads refs)
  useEffect(() => {
    const resize = new ResizeObserver((changes) => {
      let changed = false;
      for (const change of changes) {
        const key = (change.target as HTMLElement).dataset.vkey;
        const height = change.borderBoxSize[0]?.blockSize ?? change.contentRect.height;
        if (key === undefined || !change.target.isConnected) continue;
        if (Math.abs((heights.current.get(key) ?? -1) - height) >= 0.5) {
          heights.current.set(key, height);
          changed = true;
        }
      }
      if (!changed) return;
      if (anchoredNow.current) hold();
      setMeasured((count) => count + 1);
    });
    observer.current = resize;
    return () => {
      resize.disconnect();
      observer.current = null;
      observed.current.clear();
    };
  }, []);

  // After every render, before paint: observe what is newly drawn, drop what left, hold the anchor.
  useLayoutEffect(() => {
    const list = items.current;
    const resize = observer.current;
    if (list && resize) {
      for (const element of observed.current) {
        if (element.isConnected) continue;
        resize.unobserve(element);
        observed.current.delete(element);
      }
      for (const child of list.children) {
        if (!(child as HTMLElement).dataset.vkey || observed.current.has(child)) continue;
        resize.observe(child);
        observed.current.add(child);
      }
    }
    // Held only when what is drawn changed (other entries, or other spacing above them): a render that
    // changed neither (a streamed batch below the drawn part, a row above the view re-rendered in
    // place) cannot have moved the anchor, and holding it would force a layout per batch; a drawn
    // entry that changed height is held by the observer above.
    const drawn = `${range.padTop}|${keys.slice(range.first, range.end).join("\n")}`;
    if (anchored && (anchor.current === null || drawn !== heldDrawn.current)) hold();
    if (!anchored) anchor.current = null;
    heldDrawn.current = anchored ? drawn : null;
  });
  // The view's height, when the scroller is resized (not read after every render: reading it there
  // forces a layout per batch of a streaming run).
  // biome-ignore lint/correctness/useExhaustiveDependencies: one observer for the scroller's life (it reads refs)
  useEffect(() => {
    const element = scroller.current;
    if (!element) return;
    const resize = new ResizeObserver(() => updateView());
    resize.observe(element);
    return () => resize.disconnect();
  }, []);

  return {
    range,
    /** Call on every scroll of the scroller. */
    onScroll() {
      updateView();
      if (anchoredNow.current) capture();
    },
    /** Brings an entry into the drawn part, a third of the way down the view (the anchor moves with it). */
    scrollToIndex(index: number) {
      const element = scroller.current;
      const list = items.current;
      if (!element || !list) return;
      anchor.current = null;
      element.scrollTop = list.offsetTop + (offsets[index] ?? 0) - element.clientHeight / 3;
      updateView();
    },
  };
}

interface Anchor {
  key: string;
  /** Its offsetTop when captured. */
  top: number;
  /** How far below the top of the view it was. */
  delta: number;
}

/** The view placed by the first anchor entry still in the list, where the offsets put it now. */
function anchoredView(
  keys: readonly string[],
  offsets: Float64Array,
  anchor: readonly Anchor[] | null,
  view: { top: number; height: number },
): { top: number; height: number } {
  for (const at of anchor ?? []) {
    const index = keys.indexOf(at.key);
    if (index >= 0) return { top: (offsets[index] ?? 0) - at.delta, height: view.height };
  }
  return view;
}

/** Where each entry starts, from the top of the list; the last value is the list's whole height. */
function offsetsOf(keys: readonly string[], heights: ReadonlyMap<string, number>): Float64Array {
  let sum = 0;
  for (const height of heights.values()) sum += height;
  const estimate = heights.size > 0 ? sum / heights.size : ESTIMATE_PX;
  const offsets = new Float64Array(keys.length + 1);
  for (let index = 0; index < keys.length; index++) {
    offsets[index + 1] = (offsets[index] ?? 0) + (heights.get(keys[index] as string) ?? estimate);
  }
  return offsets;
}

/** The entries to draw: those within the overscan of the view; the end of the list while following. */
export function rangeOf(
  offsets: Float64Array,
  count: number,
  view: { top: number; height: number },
  anchored: boolean,
): VirtualRange {
  const total = offsets[count] ?? 0;
  if (count < DRAW_ALL_UNDER) return { first: 0, end: count, padTop: 0, padBottom: 0 };
  const height = view.height > 0 ? view.height : 800;
  const top = anchored ? view.top : total - height;
  const first = Math.max(0, indexAt(offsets, count, top - OVERSCAN_PX));
  const end = Math.min(count, indexAt(offsets, count, top + height + OVERSCAN_PX) + 1);
  return { first, end, padTop: offsets[first] ?? 0, padBottom: total - (offsets[end] ?? total) };
}

/** The last entry that starts at or above `y` (0 when none does). */
function indexAt(offsets: Float64Array, count: number, y: number): number {
  let low = 0;
  let high = count - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if ((offsets[middle] ?? 0) <= y) low = middle;
    else high = middle - 1;
  }
  return Math.max(0, low);
}

/** The drawn element of an entry (the `data-vkey` wrapper), null when it is not drawn. */
export function drawnItem(list: HTMLElement | null, key: string): HTMLElement | null {
  return list?.querySelector<HTMLElement>(`:scope > [data-vkey="${CSS.escape(key)}"]`) ?? null;
}
