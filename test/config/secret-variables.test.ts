/**
 * Audit 2026-11-29 item 3, at the config stage: a secret variable (referenced from a secret field,
 * named by an account's apiKeyEnv, or documented) used in any other field is an issue naming the
 * field and the variable; the data keeps the reference, not the value. A variable holding a secret's
 * value, or the value written literally elsewhere, is refused the same way. The e2e side:
 * test/e2e/config-secret-values.test.ts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inspectConfig, journalFileOf } from '../../src/config/load.js';
import { ConfigError } from '../../src/config/issues.js';
import { SECRET_VARIABLES } from '../../src/config/env.js';
import { envSecrets } from '../../src/runtime/secrets.js';

const KEY = 'SEKRETKEY0123456789abcdefXYZ';
const PROP = 'PROPKEY-abcdef-0123456789';
const HOOK = 'HOOKPATHSEKRET42';

const dir = mkdtempSync(join(tmpdir(), 'mizan-secret-vars-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function inspect(text: string, env: Record<string, string>) {
  const r = inspectConfig(text, { env, baseDir: dir });
  // The issues, and the data but for the secret fields (which hold the secrets, as they should).
  const { exchange: _e, notifications: _n, ...rest } = (r.data ?? {}) as Record<string, unknown>;
  const all = JSON.stringify({ issues: r.issues, data: rest });
  return { ...r, all };
}

describe('secret variables outside their fields', () => {
  it('each use is an issue naming the field and the variable, and the data keeps the reference', () => {
    const r = inspect(
      `mode: paper
exchange:
  apiKey: \${WALLEX_API_KEY}
accounts:
  "prop:7": { apiKeyEnv: PROP_KEY }
notifications:
  targets:
    - format: json
      url: http://127.0.0.1:9/hook/\${HOOK_SECRET}
strategies:
  - name: \${PROP_KEY}
    strategy: sma-cross
    markets: [BTCUSDT]
    params:
      fast: \${WALLEX_API_KEY}
logging:
  file: /tmp/\${HOOK_SECRET}.log
`,
      { WALLEX_API_KEY: KEY, PROP_KEY: PROP, HOOK_SECRET: HOOK },
    );
    expect(r.config).toBeUndefined();
    const by = Object.fromEntries(r.issues.map((i) => [i.path, i.message]));
    expect(by['strategies[0].params.fast']).toMatch(/^references \$\{WALLEX_API_KEY\}, a secret variable \(exchange\.apiKey\) \(value hidden\)/);
    expect(by['strategies[0].name']).toMatch(/^references \$\{PROP_KEY\}, a secret variable \(accounts\["prop:7"\]\.apiKeyEnv\)/);
    expect(by['logging.file']).toMatch(/^references \$\{HOOK_SECRET\}, a secret variable \(notifications\.targets\[0\]\.url\)/);
    for (const s of [KEY, PROP, HOOK]) expect(r.all).not.toContain(s);
    const data = r.data as { strategies: { name: string; params: { fast: string } }[] };
    expect(data.strategies[0]?.params.fast).toBe('${WALLEX_API_KEY}');
    expect(data.strategies[0]?.name).toBe('${PROP_KEY}');
  });

  it('a documented secret variable is one even where the file has no secret field', () => {
    const r = inspect(
      `mode: paper
strategies:
  - { name: a, strategy: sma-cross, markets: [BTCUSDT], params: { fast: "\${WALLEX_STREAM_KEY}" } }
`,
      { WALLEX_STREAM_KEY: KEY },
    );
    expect(r.issues.map((i) => `${i.path}: ${i.message}`).join('\n')).toMatch(
      /strategies\[0\]\.params\.fast: references \$\{WALLEX_STREAM_KEY\}, a secret variable \(exchange\.stream\.privateKey\)/,
    );
    expect(r.all).not.toContain(KEY);
  });

  it("another variable holding a secret's value, or the value written literally, is refused and hidden", () => {
    const r = inspect(
      `mode: paper
exchange:
  apiKey: \${WALLEX_API_KEY}
strategies:
  - name: \${ALIAS}
    strategy: sma-cross
    markets: [BTCUSDT]
journal:
  file: /tmp/${KEY}.sqlite
`,
      { WALLEX_API_KEY: KEY, ALIAS: KEY },
    );
    const by = Object.fromEntries(r.issues.map((i) => [i.path, i.message]));
    expect(by['strategies[0].name']).toMatch(/^\$\{ALIAS\} holds the value of a secret \(exchange\.apiKey\) \(value hidden\)/);
    expect(by['journal.file']).toMatch(/^holds the value of a secret \(exchange\.apiKey\) \(value hidden\)/);
    expect(r.all).not.toContain(KEY);
  });

  it('references in their own fields, and ordinary variables elsewhere, are substituted as before', () => {
    const r = inspect(
      `mode: paper
exchange:
  apiKey: \${WALLEX_API_KEY}
strategies:
  - name: \${BOT_NAME}
    strategy: sma-cross
    markets: [BTCUSDT]
journal:
  file: \${JOURNAL_DIR}/j.sqlite
`,
      { WALLEX_API_KEY: KEY, BOT_NAME: 'bot1', JOURNAL_DIR: dir },
    );
    expect(r.issues).toEqual([]);
    expect(r.config?.exchange.apiKey).toBe(KEY);
    expect(r.config?.strategies[0]?.name).toBe('bot1');
    expect(r.config?.journal.file).toBe(`${dir}/j.sqlite`);
  });

  it('journalFileOf (mizan halt --config) refuses a journal path from a secret variable without its value', () => {
    const file = join(dir, 'halt.yaml');
    writeFileSync(file, `mode: live\nexchange:\n  apiKey: \${MY_KEY}\njournal:\n  file: /tmp/\${MY_KEY}.sqlite\n`);
    let err: unknown;
    try {
      journalFileOf(file, { env: { MY_KEY: KEY } });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).message).toMatch(/journal\.file: references \$\{MY_KEY\}, a secret variable \(exchange\.apiKey\)/);
    expect((err as ConfigError).message).not.toContain(KEY);
  });

  it('the documented secret variables are the ones the logger scrubs', () => {
    const env = Object.fromEntries(Object.keys(SECRET_VARIABLES).map((n, i) => [n, `value-of-${n}-${i}`]));
    expect(envSecrets(env).sort()).toEqual(Object.values(env).sort());
  });
});
