const STORAGE_KEY = "longrun.token";

export interface TokenLocation {
  href: string;
}

export interface TokenStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/**
 * Takes the token from `?token=` when present (the URL the server prints), remembers it, and returns
 * the address without it so it does not linger in history or screenshots.
 */
export function takeToken(
  location: TokenLocation,
  storage: TokenStorage,
): { token: string | null; cleanUrl: string | null } {
  const url = new URL(location.href);
  const fromQuery = url.searchParams.get("token");
  if (fromQuery) {
    storage.setItem(STORAGE_KEY, fromQuery);
    url.searchParams.delete("token");
    return { token: fromQuery, cleanUrl: `${url.pathname}${url.search}${url.hash}` };
  }
  return { token: storage.getItem(STORAGE_KEY), cleanUrl: null };
}

/** Remembers a token typed by the user. */
export function saveToken(storage: TokenStorage, token: string): void {
  storage.setItem(STORAGE_KEY, token);
}

/** Forgets the stored token (it was rejected). */
export function forgetToken(storage: TokenStorage): void {
  storage.removeItem(STORAGE_KEY);
}
