/**
 * Accounts a bot trades on: the exchange's main account, or a trading-credit (prop) account named
 * `prop:<client id>` (config `strategies[].account`). One name for the main account everywhere.
 */
export type AccountName = 'main' | `prop:${string}`;

/** The exchange's main account (the default of `strategies[].account`). */
export const MAIN_ACCOUNT = 'main' satisfies AccountName;

/** A trading-credit account's client id (the `sub-account-client-id` header), or undefined for the main account. */
export function subAccountId(account: string): string | undefined {
  return account === MAIN_ACCOUNT ? undefined : account.replace(/^prop:/, '');
}
