import { describe, expect, it } from 'vitest';
import { FailureLimit, TokenCheck, generateToken, resolveTokens } from '../../src/server/auth.js';

describe('API tokens', () => {
  it('takes the config first, then MIZAN_SERVER_TOKEN / MIZAN_SERVER_CONTROL_TOKEN, else generates', () => {
    const env = { MIZAN_SERVER_TOKEN: 'env-read-0123456789abc', MIZAN_SERVER_CONTROL_TOKEN: 'env-control-0123456789' };
    expect(resolveTokens({ token: 'cfg-read-0123456789abc' }, env)).toEqual({
      read: 'cfg-read-0123456789abc',
      control: 'env-control-0123456789',
      generated: [],
    });
    const g = resolveTokens({}, {});
    expect(g.generated).toEqual(['read', 'control']);
    expect(g.read).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(g.read).not.toBe(g.control);
    expect(generateToken()).not.toBe(generateToken());
  });

  it('refuses an unusable or shared token, naming the variable and hiding the value', () => {
    expect(() => resolveTokens({}, { MIZAN_SERVER_TOKEN: 'short1' })).toThrow(/^MIZAN_SERVER_TOKEN: is not a usable token \(value hidden, 6 characters\)/);
    expect(() => resolveTokens({}, { MIZAN_SERVER_TOKEN: 'x'.repeat(20) + '/' })).toThrow(/MIZAN_SERVER_TOKEN/);
    expect(() => resolveTokens({}, { MIZAN_SERVER_TOKEN: 'same-token-0123456789', MIZAN_SERVER_CONTROL_TOKEN: 'same-token-0123456789' })).toThrow(
      /must differ/,
    );
    try {
      resolveTokens({}, { MIZAN_SERVER_TOKEN: 'short1' });
    } catch (e) {
      expect((e as Error).message).not.toContain('short1');
    }
  });

  it('grants read or control access by the token, nothing to anything else', () => {
    const t = new TokenCheck({ read: 'read-token-0123456789', control: 'control-token-0123456789' });
    expect(t.access('read-token-0123456789')).toBe('read');
    expect(t.access('control-token-0123456789')).toBe('control');
    expect(t.access('read-token-012345678')).toBeUndefined();
    expect(t.access('')).toBeUndefined();
  });

  it('blocks an address after max failures until its window ends; other addresses are not affected', () => {
    let now = 0;
    const l = new FailureLimit({ maxFailures: 3, windowMs: 60_000, now: () => now });
    expect(l.fail('a')).toBe(false);
    expect(l.fail('a')).toBe(false);
    expect(l.blockedFor('a')).toBe(0);
    expect(l.fail('a')).toBe(true);
    now = 10_000;
    expect(l.blockedFor('a')).toBe(50_000);
    expect(l.blockedFor('b')).toBe(0);
    now = 60_000;
    expect(l.blockedFor('a')).toBe(0);
    expect(l.fail('a')).toBe(false);
  });

  it('remembers at most maxAddresses addresses, forgetting the oldest windows first', () => {
    let now = 0;
    const l = new FailureLimit({ maxFailures: 2, windowMs: 60_000, maxAddresses: 3, now: () => now });
    l.fail('a');
    l.fail('a');
    expect(l.blockedFor('a')).toBeGreaterThan(0);
    now = 1;
    for (const k of ['b', 'c']) l.fail(k);
    // a fourth address: the oldest window (a's) is forgotten, the newer ones kept
    l.fail('d');
    expect(l.blockedFor('a')).toBe(0);
    l.fail('b');
    expect(l.blockedFor('b')).toBeGreaterThan(0);
  });
});
