import { createContext, type Dispatch, type ReactNode, useContext, useReducer } from "react";
import type { LongrunApi } from "../api/api-types.ts";
import { type AppAction, type AppState, appReducer, initialAppState } from "./app-reducer.ts";

interface Store {
  api: LongrunApi;
  state: AppState;
  dispatch: Dispatch<AppAction>;
}

const StoreContext = createContext<Store | null>(null);

/** Provides the API client and the app state to every component below. */
export function StoreProvider({ api, children }: { api: LongrunApi; children: ReactNode }) {
  const [state, dispatch] = useReducer(appReducer, initialAppState);
  return <StoreContext.Provider value={{ api, state, dispatch }}>{children}</StoreContext.Provider>;
}

/** The store; throws outside StoreProvider, which is a programming error. */
export function useStore(): Store {
  const store = useContext(StoreContext);
  if (!store) throw new Error("useStore outside StoreProvider");
  return store;
}

/** The store when there is one: pieces also rendered on their own (server-side tests) read it this way. */
export function useOptionalStore(): Store | null {
  return useContext(StoreContext);
}
