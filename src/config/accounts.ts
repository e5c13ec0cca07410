/**
 * `accounts:` — the API key of each trading-credit (prop) account. The exchange gives every
 * trading-credit account its own key and refuses the main key for its orders, so a strategy on
 * `account: prop:<clientId>` needs that account's key. Keys come only from the environment: the file
 * names the variable (`apiKeyEnv`), never the key.
 *
 *   accounts:
 *     "prop:123": { apiKeyEnv: WALLEX_PROP_123_KEY }
 */
import * as z from 'zod';
import { describeValue } from './issues.js';

const PROP_ACCOUNT_RE = /^prop:[A-Za-z0-9_-]+$/;
const ENV_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

export const accountsSchema = z
  .record(
    z.string().regex(PROP_ACCOUNT_RE, { error: 'is not a trading-credit account (write "prop:<clientId>"; the main account\'s key is exchange.apiKey)' }),
    z.strictObject({
      apiKeyEnv: z
        .string({ error: 'is not the name of an environment variable' })
        .regex(ENV_NAME_RE, { error: 'is not the name of an environment variable (letters, digits and _, e.g. WALLEX_PROP_123_KEY)' })
        .describe("The environment variable that holds this account's API key (the key itself is never written in the file)"),
    }),
    { error: 'is not a map of trading-credit accounts ("prop:<clientId>": { apiKeyEnv: VARIABLE })' },
  )
  .default({})
  .describe(
    "Per trading-credit account (prop:<clientId>): where its own API key comes from. The exchange refuses the main key for a trading-credit account's orders",
  );

export interface AccountKeySource {
  apiKeyEnv: string;
  /** The key, read from the environment when the config was loaded (live mode needs it). */
  apiKey?: string;
}

type Env = Readonly<Record<string, string | undefined>>;
type Obj = Record<string, unknown>;
type Add = (path: (string | number)[], message: string, value?: unknown) => void;
const obj = (v: unknown): Obj | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined);

/**
 * Every trading-credit account a strategy trades on (paper and live) has a key source; in live mode
 * its variable is set and holds a key that is not the main one. Values are never printed.
 */
export function checkAccounts(root: Obj, env: Env, add: Add): void {
  const mode = typeof root.mode === 'string' ? root.mode : undefined;
  const accounts = obj(root.accounts) ?? {};
  const strategies = Array.isArray(root.strategies) ? root.strategies : [];
  if (mode === 'backtest') return;
  strategies.forEach((s, i) => {
    const account = obj(s)?.account;
    if (typeof account !== 'string' || !PROP_ACCOUNT_RE.test(account) || account in accounts) return;
    add(
      ['strategies', i, 'account'],
      `${describeValue(account)} has no API key source: a trading-credit account trades with its own key; add accounts: { "${account}": { apiKeyEnv: <VARIABLE> } } and set the variable`,
      account,
    );
  });
  if (mode !== 'live') return;
  const mainKey = obj(root.exchange)?.apiKey;
  for (const [name, v] of Object.entries(accounts)) {
    const variable = obj(v)?.apiKeyEnv;
    if (typeof variable !== 'string' || !ENV_NAME_RE.test(variable)) continue;
    const key = env[variable];
    if (key === undefined || key === '')
      add(['accounts', name, 'apiKeyEnv'], `names ${variable}, which is not set in the environment: set it to the API key of ${name}`);
    else if (key === mainKey)
      add(['accounts', name, 'apiKeyEnv'], `${variable} holds the same key as exchange.apiKey (value hidden): ${name} needs the API key issued for it`);
  }
}

/** The accounts with their keys read from `env`. */
export function resolveAccountKeys(accounts: Record<string, { apiKeyEnv: string }>, env: Env): Record<string, AccountKeySource> {
  const out: Record<string, AccountKeySource> = {};
  for (const [name, a] of Object.entries(accounts)) {
    const key = env[a.apiKeyEnv];
    out[name] = key ? { apiKeyEnv: a.apiKeyEnv, apiKey: key } : { apiKeyEnv: a.apiKeyEnv };
  }
  return out;
}
