/**
 * Before a live bot trades: the exchange must accept its API key. One balance read per account the
 * strategies trade on; a 401 or 403 stops the start with the reason (which account, which call,
 * what the exchange said; never the key). Without this a refused key ran on with "balances none"
 * and every intent was denied. Other failures (429, timeouts, 5xx) are retried by the caller's
 * start-up retry (runtime/startup-retry.ts); if they outlast its budget they do not stop the start:
 * the balance sync retries them as it always does.
 */
import { AuthenticationError, PermissionDeniedError } from '../core/errors.js';
import type { Balances } from '../core/types/index.js';
import { MAIN_ACCOUNT, subAccountId } from '../core/account.js';

class ApiKeyRefusedError extends Error {
  constructor(
    readonly account: string,
    override readonly cause: AuthenticationError | PermissionDeniedError,
  ) {
    const what =
      cause instanceof AuthenticationError ? 'the exchange does not accept the API key' : 'the API key may not read balances (or this IP is not permitted)';
    super(`live trading not started: ${what} (account ${account}): ${cause.message}. Nothing was traded.`);
    this.name = 'ApiKeyRefusedError';
  }
}

/** What the check needs of the REST client. */
export interface KeyCheckClient {
  getBalances(): Promise<Balances>;
  withSubAccount(id: string, apiKey?: string): { getBalances(): Promise<Balances> };
}

/**
 * Read the balances of `main` and of each other account the strategies trade on (`prop:<id>` or a
 * sub-account id) once, a trading-credit account with its own key (`keyOf`); throws
 * ApiKeyRefusedError on the first 401/403.
 */
export async function checkApiKey(
  client: KeyCheckClient,
  accounts: readonly string[],
  keyOf: (account: string) => string | undefined = () => undefined,
): Promise<void> {
  for (const name of new Set([MAIN_ACCOUNT, ...accounts])) {
    const sub = subAccountId(name);
    const reader = sub === undefined ? client : client.withSubAccount(sub, keyOf(name));
    try {
      await reader.getBalances();
    } catch (err) {
      if (err instanceof AuthenticationError || err instanceof PermissionDeniedError) throw new ApiKeyRefusedError(name, err);
    }
  }
}
