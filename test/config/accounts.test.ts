/**
 * `accounts:` (issue #35 item 1): each trading-credit account's own API key, from the environment
 * only. Problems are ConfigErrors naming the field, never printing a key; the keys are secrets
 * (runtime/secrets.ts) scrubbed like the main key.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/index.js';
import { inspectConfig } from '../../src/config/load.js';
import { configSecrets, secretsOfConfigFile } from '../../src/runtime/secrets.js';

const MAIN = 'mainkey_0123456789abcdef';
const PROP = 'propkey_0123456789abcdef';

function yaml(o: { mode?: string; account?: string; accounts?: string } = {}): string {
  return [
    `mode: ${o.mode ?? 'live'}`,
    'exchange:',
    ...(o.mode === 'paper' ? [] : ['  simulator: false', '  apiKey: ${WALLEX_API_KEY}']),
    'strategies:',
    '  - name: a',
    '    strategy: sma-cross',
    '    markets: [BTCUSDT]',
    '    resolution: "1"',
    `    account: "${o.account ?? 'prop:abc-1'}"`,
    ...(o.accounts !== undefined ? [o.accounts] : []),
    '',
  ].join('\n');
}
const issues = (text: string, env: Record<string, string>) => inspectConfig(text, { env }).issues.map((i) => `${i.path}: ${i.message}`);

describe("accounts: the trading-credit accounts' own keys", () => {
  it('resolves each key from its variable', () => {
    const c = parseConfig(yaml({ accounts: 'accounts:\n  "prop:abc-1": { apiKeyEnv: PROP_1_KEY }' }), { env: { WALLEX_API_KEY: MAIN, PROP_1_KEY: PROP } });
    expect(c.accounts).toEqual({ 'prop:abc-1': { apiKeyEnv: 'PROP_1_KEY', apiKey: PROP } });
    expect(configSecrets(c, [], {})).toContain(PROP);
  });

  it('a strategy on a trading-credit account without a key source is an error naming strategies[i].account (live and paper)', () => {
    for (const mode of ['live', 'paper']) {
      const out = issues(yaml({ mode }), { WALLEX_API_KEY: MAIN });
      expect(out.join('\n')).toMatch(/^strategies\[0\]\.account: "prop:abc-1" has no API key source/m);
    }
    // The main account needs none.
    expect(issues(yaml({ account: 'main' }), { WALLEX_API_KEY: MAIN })).toEqual([]);
  });

  it('live: the variable must be set, and not to the main key; values never printed', () => {
    const text = yaml({ accounts: 'accounts:\n  "prop:abc-1": { apiKeyEnv: PROP_1_KEY }' });
    expect(issues(text, { WALLEX_API_KEY: MAIN })).toEqual([
      'accounts["prop:abc-1"].apiKeyEnv: names PROP_1_KEY, which is not set in the environment: set it to the API key of prop:abc-1',
    ]);
    const same = issues(text, { WALLEX_API_KEY: MAIN, PROP_1_KEY: MAIN });
    expect(same).toEqual([
      'accounts["prop:abc-1"].apiKeyEnv: PROP_1_KEY holds the same key as exchange.apiKey (value hidden): prop:abc-1 needs the API key issued for it',
    ]);
    expect(same.join()).not.toContain(MAIN);
    // Paper does not need the key itself.
    expect(issues(yaml({ mode: 'paper', accounts: 'accounts:\n  "prop:abc-1": { apiKeyEnv: PROP_1_KEY }' }), {})).toEqual([]);
  });

  it('refuses a name that is not a trading-credit account, a bad variable name and unknown fields', () => {
    const out = issues(yaml({ accounts: 'accounts:\n  "prop:abc-1": { apiKeyEnv: "1-bad", apiKey: x }\n  main: { apiKeyEnv: K }' }), {
      WALLEX_API_KEY: MAIN,
    }).join('\n');
    expect(out).toMatch(/apiKeyEnv.*is not the name of an environment variable/);
    expect(out).toMatch(/apiKey/);
    expect(out).toMatch(/is not a trading-credit account/);
  });

  it('secretsOfConfigFile reads the keys the file names, without checking the rest', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mizan-accounts-'));
    try {
      const file = join(dir, 'c.yaml');
      writeFileSync(file, 'accounts:\n  "prop:x-1": { apiKeyEnv: PROP_X_KEY }\n');
      return secretsOfConfigFile(file, { PROP_X_KEY: PROP }).then((s) => expect(s).toContain(PROP));
    } finally {
      setTimeout(() => rmSync(dir, { recursive: true, force: true }), 0);
    }
  });
});
