import { createRoot } from "react-dom/client";
import { takeToken } from "./api/token.ts";
import { Root } from "./components/root.tsx";
import "./styles.css";

const { token, cleanUrl } = takeToken(window.location, window.localStorage);
// The printed URL carries the token; keep it out of the address bar and the history.
if (cleanUrl !== null) window.history.replaceState(null, "", cleanUrl);

const container = document.getElementById("root");
if (container) createRoot(container).render(<Root initialToken={token} />);
