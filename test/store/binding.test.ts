/** store/binding.ts: a journal bound to an account (exchange URL, key fingerprint), refused to another unless adopted. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/logger.js';
import { Journal, JournalBindingError, bindJournal, keyFingerprint, readBinding } from '../../src/store/index.js';

const KEY_A = 'key-A-0123456789abcdef';
const KEY_B = 'key-B-fedcba9876543210';
const A = { exchange: 'http://127.0.0.1:1234', keyFingerprint: keyFingerprint(KEY_A) };
const B = { exchange: 'http://127.0.0.1:1234', keyFingerprint: keyFingerprint(KEY_B) };

function capture() {
  const lines: { level: string; obj: unknown; msg?: string }[] = [];
  const log = (level: string) => (obj: unknown, msg?: string) => void lines.push({ level, obj, ...(msg !== undefined ? { msg } : {}) });
  return { lines, logger: { ...silentLogger, info: log('info'), warn: log('warn'), child: () => silentLogger } as typeof silentLogger };
}

describe('journal account binding', () => {
  it('a fingerprint: sha256 of a fixed prefix and the key, 16 hex characters, not the key', () => {
    expect(keyFingerprint(KEY_A)).toMatch(/^[0-9a-f]{16}$/);
    expect(keyFingerprint(KEY_A)).not.toBe(keyFingerprint(KEY_B));
    expect(keyFingerprint(KEY_A)).not.toBe(createHash('sha256').update(KEY_A).digest('hex').slice(0, 16));
  });

  it('binds a new journal, accepts the same account, refuses another naming both, adopts on request', () => {
    const j = Journal.open(':memory:');
    const c = capture();
    expect(bindJournal(j, A, { logger: c.logger, now: 1 })).toBe('bound');
    expect(readBinding(j)).toEqual({ ...A, since: 1 });
    expect(bindJournal(j, A, { logger: c.logger, now: 2 })).toBe('same');
    let err: unknown;
    try {
      bindJournal(j, B, { logger: c.logger, now: 3 });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(JournalBindingError);
    const msg = (err as Error).message;
    expect(msg).toContain(
      `belongs to http://127.0.0.1:1234 (API key fingerprint ${A.keyFingerprint}), not to this run's http://127.0.0.1:1234 (API key fingerprint ${B.keyFingerprint})`,
    );
    expect(msg).toContain('--adopt-journal');
    expect(msg).not.toContain(KEY_A);
    expect(msg).not.toContain(KEY_B);
    expect(readBinding(j)).toEqual({ ...A, since: 1 });
    expect(() => bindJournal(j, { exchange: 'paper' }, { logger: c.logger, now: 3 })).toThrow(/not to this run's paper \(no API key\)/);
    expect(bindJournal(j, B, { adopt: true, logger: c.logger, now: 4 })).toBe('adopted');
    expect(readBinding(j)).toEqual({ ...B, since: 4 });
    expect(c.lines.find((l) => l.level === 'warn')).toMatchObject({
      msg: 'journal adopted (--adopt-journal): it now belongs to this account',
      obj: { from: { keyFingerprint: A.keyFingerprint }, to: { keyFingerprint: B.keyFingerprint } },
    });
    expect(() => bindJournal(j, A, { logger: c.logger, now: 5 })).toThrow(JournalBindingError);
    j.close();
  });
});
