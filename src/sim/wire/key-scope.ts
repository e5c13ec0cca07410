/**
 * Which account an API key may act for (the exchange's trading-credit rule, docs `create-api-key`,
 * `trade-credit-intro`): every trading-credit (prop) account has its own API key, and its orders
 * need that key AND the `sub-account-client-id` header.
 *
 * - A key issued for a trading-credit account acts only for it: the header must name that account.
 * - The main account's key with the header is refused on the trading routes (orders, balances,
 *   trades of the sub-account). It stays valid on the routes that manage trading-credit accounts
 *   from the main account (`/v1/prop/...`, `/sub-accounts...`), where the header names the account
 *   to manage, as the docs' examples send it.
 *
 * Refusals are HTTP 403 in the exchange's error envelope; they name the account, never the key.
 */
import { SimError } from '../errors.js';

const MANAGEMENT = [/^\/v1\/prop\//, /^\/sub-accounts(\/|$)/];

export function checkKeyScope(keySubAccount: string | undefined, headerSubAccount: string | undefined, path: string): void {
  if (keySubAccount !== undefined) {
    if (headerSubAccount === undefined) {
      throw new SimError(
        403,
        `this API key belongs to trading-credit account ${keySubAccount}: send it with the header sub-account-client-id: ${keySubAccount}`,
        {
          'sub-account-client-id': ["the header is required with a trading-credit account's API key"],
        },
      );
    }
    if (headerSubAccount !== keySubAccount) {
      throw new SimError(403, `this API key belongs to another trading-credit account, not ${JSON.stringify(headerSubAccount)}`, {
        'sub-account-client-id': [`the API key is not valid for trading-credit account ${JSON.stringify(headerSubAccount)}`],
      });
    }
    return;
  }
  if (headerSubAccount !== undefined && !MANAGEMENT.some((re) => re.test(path))) {
    throw new SimError(
      403,
      `the main account's API key cannot act for trading-credit account ${JSON.stringify(headerSubAccount)}: use the API key issued for that account`,
      {
        'x-api-key': [`not the API key of trading-credit account ${JSON.stringify(headerSubAccount)}`],
      },
    );
  }
}
