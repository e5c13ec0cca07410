/**
 * The journal writes no secret (issue #33 item 3): with `secrets`, every free text it stores (the
 * trading state's reason, a denial's reason, an intent, an order's and an event's detail, a tag, a
 * strategy's kv value) has them replaced by [REDACTED], in the file's bytes too. And which strings
 * are secret: runtime/secrets.ts, from a config file (without checking the rest of it) and the environment.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { d } from '../../src/core/decimal.js';
import { Journal } from '../../src/store/index.js';
import { configSecrets, envSecrets, secretsOfConfigFile } from '../../src/runtime/secrets.js';

const KEY = 'unit-api-key-0123456789';
const TOKEN = 'unit-control-token-abcdef';
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mizan-journal-secrets-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const bytes = (f: string) =>
  [f, `${f}-wal`]
    .filter(existsSync)
    .map((x) => readFileSync(x).toString('latin1'))
    .join('');

describe('Journal with secrets', () => {
  it('stores every free text with the secrets replaced, and nothing else changed', () => {
    const file = join(dir, 'j.sqlite');
    const j = Journal.open(file, { secrets: [KEY, TOKEN] });
    const leak = `see ${KEY} and ${TOKEN}`;
    j.setTradingState({ state: 'halted', reason: leak, since: 1 });
    const id = j.recordDecision({
      ok: false,
      intent: { kind: 'cancelAll', strategy: 's', symbol: 'BTCUSDT', note: leak } as never,
      rule: 'custom',
      reason: leak,
    });
    j.recordOrder({
      clientId: 'c1',
      strategy: 's',
      symbol: 'BTCUSDT',
      side: 'BUY',
      type: 'LIMIT',
      venue: 'sim',
      price: d('1'),
      quantity: d('2'),
      status: 'pending',
      final: false,
      ts: 1,
      tag: leak,
      detail: { why: leak },
    });
    j.updateOrder('c1', { status: 'rejected', final: true, ts: 2, detail: { error: leak } });
    j.recordOrderEvent('c1', 'retry', { error: leak }, 3);
    j.kvSet('s', 'note', { text: leak });
    expect(j.tradingState()?.reason).toBe('see [REDACTED] and [REDACTED]');
    expect(j.intents({}).find((i) => i.id === id)?.verdict?.reason).toBe('see [REDACTED] and [REDACTED]');
    expect(j.kvGet('s', 'note')).toEqual({ text: 'see [REDACTED] and [REDACTED]' });
    expect(j.orders({})[0]).toMatchObject({
      clientId: 'c1',
      tag: 'see [REDACTED] and [REDACTED]',
      status: 'rejected',
      detail: { error: 'see [REDACTED] and [REDACTED]' },
    });
    j.close();
    const b = bytes(file);
    expect(b).toContain('[REDACTED]');
    expect(b).not.toContain(KEY);
    expect(b).not.toContain(TOKEN);
  });

  it('without secrets stores the text as given', () => {
    const j = Journal.open(':memory:');
    j.setTradingState({ state: 'halted', reason: `x ${KEY}`, since: 1 });
    expect(j.tradingState()?.reason).toBe(`x ${KEY}`);
    j.close();
  });
});

describe('runtime/secrets: which strings are secret', () => {
  it('a parsed config: keys, tokens, notification secrets, extras and the secret variables; short values skipped', () => {
    const s = configSecrets(
      {
        exchange: { apiKey: KEY, stream: { privateKey: 'stream-key-123456' } },
        server: { controlToken: TOKEN },
        notifications: { targets: [{ token: 'bot-token-999999', url: 'https://hooks.example/abc' }] },
      },
      ['generated-token-xyz', undefined, 'short'],
      { WALLEX_API_KEY: KEY, MIZAN_SERVER_TOKEN: 'read-token-from-env', OTHER: 'not-a-secret-var' },
    );
    expect(s.sort()).toEqual(
      [KEY, TOKEN, 'bot-token-999999', 'generated-token-xyz', 'https://hooks.example/abc', 'read-token-from-env', 'stream-key-123456'].sort(),
    );
  });

  it('a config file, read without checking the rest of it, with its ${VAR} references', async () => {
    const f = join(dir, 'c.yaml');
    writeFileSync(f, 'mode: paper\nexchange:\n  apiKey: ${MY_KEY}\nserver:\n  controlToken: ${MY_TOKEN}\nstrategies: 42\n');
    expect((await secretsOfConfigFile(f, { MY_KEY: KEY, MY_TOKEN: TOKEN })).sort()).toEqual([KEY, TOKEN].sort());
    // A missing variable or an unreadable file: the environment's secrets alone.
    expect(await secretsOfConfigFile(f, {})).toEqual([]);
    expect(await secretsOfConfigFile(join(dir, 'missing.yaml'), { MIZAN_SERVER_CONTROL_TOKEN: TOKEN })).toEqual([TOKEN]);
    expect(envSecrets({ WALLEX_STREAM_KEY: 'stream-key-abcdef' })).toEqual(['stream-key-abcdef']);
  });
});
