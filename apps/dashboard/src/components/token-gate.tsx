import { useState } from "react";

/** Asks for the API token when the page was opened without `?token=`. */
export function TokenGate({ rejected, onToken }: { rejected: boolean; onToken: (token: string) => void }) {
  const [value, setValue] = useState("");
  return (
    <main className="token-gate" data-testid="token-gate">
      <h1>longrun</h1>
      <p>
        Open the URL that <code>npm start</code> printed (it carries <code>?token=…</code>), or paste the
        token here.
      </p>
      {rejected && (
        <p className="error" data-testid="token-rejected">
          The server rejected that token.
        </p>
      )}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (value.trim()) onToken(value.trim());
        }}
      >
        <input
          aria-label="API token"
          data-testid="token-input"
          value={value}
          onChange={(event) => setValue(event.target.value)}
          placeholder="token"
        />
        <button type="submit" data-testid="token-submit">
          Connect
        </button>
      </form>
    </main>
  );
}
