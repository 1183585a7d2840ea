import { useMemo, useState } from "react";
import { createApi } from "../api/create-api.ts";
import { forgetToken, saveToken } from "../api/token.ts";
import { StoreProvider } from "../state/store-context.tsx";
import { App } from "./app.tsx";
import { TokenGate } from "./token-gate.tsx";

/** Holds the token: without one it asks for it; with one it builds the client and shows the app. */
export function Root({ initialToken }: { initialToken: string | null }) {
  const [token, setToken] = useState(initialToken);
  const [rejected, setRejected] = useState(false);
  const api = useMemo(() => (token ? createApi(window.location.origin, token) : null), [token]);
  if (!api) {
    return (
      <TokenGate
        rejected={rejected}
        onToken={(value) => {
          saveToken(window.localStorage, value);
          setRejected(false);
          setToken(value);
        }}
      />
    );
  }
  return (
    <StoreProvider api={api}>
      <App
        onUnauthorized={() => {
          forgetToken(window.localStorage);
          setRejected(true);
          setToken(null);
        }}
      />
    </StoreProvider>
  );
}
