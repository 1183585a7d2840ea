import { useCallback, useEffect, useState } from "react";

export type Route = { view: "threads"; threadId: string | null } | { view: "ops" };

/** "#/threads/abc" → thread abc; "#/ops" → operations; anything else → the thread list. */
export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, "").split("/").filter(Boolean);
  if (parts[0] === "ops") return { view: "ops" };
  if (parts[0] === "threads" && parts[1]) return { view: "threads", threadId: decodeURIComponent(parts[1]) };
  return { view: "threads", threadId: null };
}

/** The hash for a route. */
export function routeHash(route: Route): string {
  if (route.view === "ops") return "#/ops";
  return route.threadId ? `#/threads/${encodeURIComponent(route.threadId)}` : "#/";
}

/** The current route, kept in the address bar so a reload or a shared link lands in the same place. */
export function useHashRoute(): [Route, (route: Route) => void] {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener("hashchange", onChange);
    return () => window.removeEventListener("hashchange", onChange);
  }, []);
  const navigate = useCallback((next: Route) => {
    window.location.hash = routeHash(next);
  }, []);
  return [route, navigate];
}
