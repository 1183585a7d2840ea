import { APIConnectionError, APIError, APIUserAbortError } from "openai";
import { describe, expect, it } from "vitest";
import {
  isContextOverflow,
  isInvalidEncryptedContent,
  isRetryableProviderError,
  retryAfterMs,
  withProviderRetry,
} from "./provider-retry.ts";

function apiError(status: number, code?: string, message = "error", headers: Record<string, string> = {}) {
  return APIError.generate(
    status,
    { error: { message, code, type: "invalid_request_error" } },
    message,
    new Headers(headers),
  );
}

// Records what the retry loop would wait, instead of waiting.
function harness(failures: unknown[], randomValues: number[] = [0.5]) {
  const waits: number[] = [];
  let calls = 0;
  let randomIndex = 0;
  const fn = async () => {
    calls++;
    const failure = failures.shift();
    if (failure !== undefined) throw failure;
    return "done";
  };
  const options = {
    baseMs: 100,
    maxMs: 1_000,
    random: () => randomValues[randomIndex++ % randomValues.length] as number,
    sleep: async (ms: number) => void waits.push(ms),
  };
  return { fn, options, waits, calls: () => calls };
}

describe("withProviderRetry", () => {
  it("retries 429 and 500 with exponential full jitter", async () => {
    const { fn, options, waits, calls } = harness(
      [apiError(429), apiError(500), apiError(503), apiError(502)],
      [0.999],
    );
    await expect(withProviderRetry(fn, options)).resolves.toBe("done");
    expect(calls()).toBe(5);
    // Full jitter: each wait lies in [0, min(maxMs, baseMs * 2^(n-1))).
    expect(waits).toEqual([99, 199, 399, 799]);
  });

  it("draws each wait uniformly below the exponential ceiling", async () => {
    const ceilings = [100, 200, 400, 800];
    for (const value of [0, 0.25, 0.75]) {
      const { fn, options, waits } = harness(
        [apiError(500), apiError(500), apiError(500), apiError(500)],
        [value],
      );
      await withProviderRetry(fn, options);
      expect(waits).toEqual(ceilings.map((ceiling) => Math.floor(value * ceiling)));
      for (const [index, wait] of waits.entries()) {
        expect(wait).toBeGreaterThanOrEqual(0);
        expect(wait).toBeLessThan(ceilings[index] as number);
      }
    }
  });

  it("caps the backoff at maxMs", async () => {
    const failures = Array.from({ length: 7 }, () => apiError(500));
    const { fn, options, waits } = harness(failures, [0.999]);
    await withProviderRetry(fn, { ...options, maxAttempts: 8 });
    expect(Math.max(...waits)).toBe(999);
  });

  it("does not retry a 400, and stops after maxAttempts", async () => {
    const bad = harness([apiError(400, "context_length_exceeded")]);
    await expect(withProviderRetry(bad.fn, bad.options)).rejects.toMatchObject({ status: 400 });
    expect(bad.calls()).toBe(1);
    const down = harness(Array.from({ length: 10 }, () => apiError(500)));
    await expect(withProviderRetry(down.fn, { ...down.options, maxAttempts: 3 })).rejects.toMatchObject({
      status: 500,
    });
    expect(down.calls()).toBe(3);
  });

  it("honours retry-after-ms and retry-after headers", async () => {
    const { fn, options, waits } = harness([
      apiError(429, undefined, "slow down", { "retry-after-ms": "1500" }),
      apiError(429, undefined, "slow down", { "retry-after": "2" }),
    ]);
    await withProviderRetry(fn, options);
    expect(waits).toEqual([1500, 2000]);
    const far = harness([apiError(429, undefined, "later", { "retry-after": "3600" })]);
    await expect(withProviderRetry(far.fn, far.options)).rejects.toMatchObject({ status: 429 });
    expect(far.calls()).toBe(1);
  });

  it("retries connection errors but not aborts or exhausted quota", async () => {
    const connection = harness([new APIConnectionError({ message: "Connection error." })]);
    await expect(withProviderRetry(connection.fn, connection.options)).resolves.toBe("done");
    expect(connection.calls()).toBe(2);
    expect(isRetryableProviderError(Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }))).toBe(
      true,
    );
    expect(isRetryableProviderError(new APIUserAbortError())).toBe(false);
    expect(isRetryableProviderError(apiError(429, "insufficient_quota"))).toBe(false);
    expect(isRetryableProviderError(apiError(401))).toBe(false);
  });

  it("stops waiting when the signal aborts", async () => {
    const controller = new AbortController();
    const pending = withProviderRetry(
      async () => {
        throw apiError(500);
      },
      { baseMs: 60_000, maxMs: 60_000, random: () => 0.999, signal: controller.signal },
    );
    controller.abort(new Error("cancelled"));
    await expect(pending).rejects.toThrow("cancelled");
  });

  it("interrupts a backoff wait when the signal aborts", async () => {
    const controller = new AbortController();
    let calls = 0;
    const started = Date.now();
    const pending = withProviderRetry(
      async () => {
        calls++;
        throw apiError(503);
      },
      {
        baseMs: 60_000,
        maxMs: 60_000,
        random: () => 0.999,
        signal: controller.signal,
        onRetry: () => setImmediate(() => controller.abort(new Error("run cancelled"))),
      },
    );
    await expect(pending).rejects.toThrow("run cancelled");
    expect(calls).toBe(1);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe("error classification", () => {
  it("recognizes context overflow by code or wording", () => {
    expect(isContextOverflow(apiError(400, "context_length_exceeded"))).toBe(true);
    expect(
      isContextOverflow(apiError(400, undefined, "This model's maximum context length is 8192 tokens.")),
    ).toBe(true);
    expect(isContextOverflow({ code: "context_length_exceeded" })).toBe(true);
    expect(isContextOverflow(apiError(400, "invalid_value", "bad tool id"))).toBe(false);
    expect(isContextOverflow(apiError(429, undefined, "Rate limit reached for tokens per min"))).toBe(false);
  });

  it("recognizes invalid encrypted content", () => {
    expect(isInvalidEncryptedContent(apiError(400, "invalid_encrypted_content"))).toBe(true);
    expect(isInvalidEncryptedContent(apiError(400, undefined, "invalid_encrypted_content: item rs_1"))).toBe(
      true,
    );
    expect(isInvalidEncryptedContent(apiError(400, "context_length_exceeded"))).toBe(false);
  });

  it("parses retry-after as seconds or an HTTP date", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterMs({ headers: { "retry-after": "Thu, 01 Jan 2026 00:00:05 GMT" } }, now)).toBe(5_000);
    expect(retryAfterMs({ headers: new Headers({ "retry-after": "0.5" }) })).toBe(500);
    expect(retryAfterMs({})).toBeUndefined();
  });
});
