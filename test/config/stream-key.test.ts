/** exchange.stream.privateKey: a secret like apiKey (environment reference, never printed). */
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config/index.js';

const SECRET = 'Qm7streamkey-literal-0042';
const file = (key: string, extra = '') => `mode: live
exchange:
  simulator: false
  apiKey: \${WALLEX_API_KEY}
  stream:
    privateKey: ${key}${extra}
strategies:
  - { name: a, strategy: sma-cross, markets: [BTCUSDT] }
`;

function issues(text: string, env: Record<string, string>) {
  try {
    parseConfig(text, { env });
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error('accepted');
}

describe('exchange.stream.privateKey', () => {
  it('is read from an environment reference', () => {
    const c = parseConfig(file('${WALLEX_STREAM_KEY}'), { env: { WALLEX_API_KEY: 'k-123', WALLEX_STREAM_KEY: SECRET } });
    expect(c.exchange.stream.privateKey).toBe(SECRET);
  });

  it('is refused when written literally, without printing it, unless explicitly allowed', () => {
    const err = issues(file(SECRET), { WALLEX_API_KEY: 'k-123' });
    const hit = err.issues.find((i) => i.path === 'exchange.stream.privateKey');
    expect(hit?.message).toMatch(/written literally .*allowLiteralPrivateKey/);
    expect(err.message).not.toContain(SECRET);
    expect(JSON.stringify(err.issues)).not.toContain(SECRET);
    const ok = parseConfig(file(SECRET, '\n    allowLiteralPrivateKey: true'), { env: { WALLEX_API_KEY: 'k-123' } });
    expect(ok.exchange.stream.privateKey).toBe(SECRET);
  });

  it('names a missing variable, and refuses a value that is no stream key without printing it', () => {
    expect(issues(file('${WALLEX_STREAM_KEY}'), { WALLEX_API_KEY: 'k-123' }).message).toMatch(
      /exchange\.stream\.privateKey: environment variable WALLEX_STREAM_KEY is not set/,
    );
    const bad = 'has@at-sign-secret';
    const err = issues(file('${WALLEX_STREAM_KEY}'), { WALLEX_API_KEY: 'k-123', WALLEX_STREAM_KEY: bad });
    expect(err.message).toMatch(/exchange\.stream\.privateKey: is not a stream key \(value hidden, 18 characters\)/);
    expect(err.message).not.toContain(bad);
  });
});
