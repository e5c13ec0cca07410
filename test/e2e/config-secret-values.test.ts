/**
 * Audit 2026-11-29 item 3: a secret variable's value in no message. With `exchange.apiKey:
 * ${WALLEX_API_KEY}` (and the stream key from ${WALLEX_STREAM_KEY}) in the file, the same references
 * used in other fields (a parameter, journal.file, a strategy path, a strategy name), or another
 * variable holding the key's value, are config errors naming the field and the variable; `mizan check`
 * and `mizan run` (child processes) print neither value, on stdout or stderr.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mizan, tempDir } from './cli.js';

const tmp = tempDir();
afterAll(() => tmp.remove());

const KEY = 'SEKRETKEY0123456789abcdefXYZ';
const STREAM = 'STREAMSEKRET9876543210zyxQ';
const ENV = { WALLEX_API_KEY: KEY, WALLEX_STREAM_KEY: STREAM, ALIAS_OF_KEY: KEY };

const head = `mode: paper
exchange:
  apiKey: \${WALLEX_API_KEY}
  stream:
    privateKey: \${WALLEX_STREAM_KEY}
`;

/** Every use the audit found, in one file. */
const EVERY_USE = `${head}strategies:
  - name: a
    strategy: sma-cross
    markets: [BTCUSDT]
    params:
      fast: \${WALLEX_API_KEY}
      slow: \${WALLEX_STREAM_KEY}
  - name: b
    strategy: ./\${WALLEX_API_KEY}.ts
    markets: [ETHUSDT]
journal:
  file: /etc/passwd/\${WALLEX_API_KEY}.sqlite
`;

/** The only use a name: before the fix, the file passed and check printed it. */
const NAME_ONLY = (ref: string) => `${head}strategies:
  - name: ${ref}
    strategy: sma-cross
    markets: [BTCUSDT]
journal: { file: ${tmp.dir}/never.sqlite }
`;

function noSecret(out: string) {
  expect(out).not.toContain(KEY);
  expect(out).not.toContain(STREAM);
}

describe('a secret variable used outside its secret field', { timeout: 120_000 }, () => {
  it('mizan check and mizan run name each field and variable, never the value', async () => {
    const file = tmp.file('every-use.yaml', EVERY_USE);
    for (const args of [
      ['check', file],
      ['run', file, '--duration', '5'],
    ]) {
      const r = await mizan(args, { env: ENV });
      expect(r.code, r.all).toBe(1);
      noSecret(r.all);
      for (const [path, variable] of [
        ['strategies[0].params.fast', 'WALLEX_API_KEY'],
        ['strategies[0].params.slow', 'WALLEX_STREAM_KEY'],
        ['strategies[1].strategy', 'WALLEX_API_KEY'],
        ['journal.file', 'WALLEX_API_KEY'],
      ] as const) {
        expect(r.all).toContain(`${path}: references \${${variable}}, a secret variable`);
      }
      expect(r.all).not.toContain('embedded simulator');
    }
  });

  it('a strategy name from the key variable is refused (check printed it, client ids carried it)', async () => {
    const file = tmp.file('name.yaml', NAME_ONLY('${WALLEX_API_KEY}'));
    for (const args of [
      ['check', file],
      ['run', file, '--duration', '5'],
    ]) {
      const r = await mizan(args, { env: ENV });
      expect(r.code, r.all).toBe(1);
      noSecret(r.all);
      expect(r.all).toMatch(/strategies\[0\]\.name: references \$\{WALLEX_API_KEY\}, a secret variable \(exchange\.apiKey\)/);
    }
  });

  it("another variable holding the key's value is refused the same way", async () => {
    const file = tmp.file('alias.yaml', NAME_ONLY('${ALIAS_OF_KEY}'));
    const r = await mizan(['check', file], { env: ENV });
    expect(r.code, r.all).toBe(1);
    noSecret(r.all);
    expect(r.all).toMatch(/strategies\[0\]\.name: \$\{ALIAS_OF_KEY\} holds the value of a secret \(exchange\.apiKey\)/);
  });

  it('the same file with the references only in the secret fields passes check', async () => {
    const file = tmp.file('ok.yaml', NAME_ONLY('a'));
    const r = await mizan(['check', file], { env: ENV });
    expect(r.code, r.all).toBe(0);
    noSecret(r.all);
  });
});
