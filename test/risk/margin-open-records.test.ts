/**
 * Write-ahead records of margin opens (PositionOwners, margin-open-records.ts): journaled before the
 * request is sent, settled by its answer, and matched at the next start when no answer came. The
 * restart itself, against the simulator: test/e2e/margin-open-restart.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { d } from '../../src/core/decimal.js';
import { InsufficientBalanceError, RequestTimeoutError } from '../../src/core/errors.js';
import type { Intent, Verdict } from '../../src/core/intents.js';
import type { Logger } from '../../src/core/logger.js';
import type { MarginPosition, MarginRequest } from '../../src/core/types/margin.js';
import { PositionOwners } from '../../src/risk/margin-owners.js';
import { MATCH_SKEW_MS, MATCH_WINDOW_MS } from '../../src/risk/margin-open-records.js';

const T0 = Date.parse('2026-01-05T10:00:00.000Z');

function position(id: number, over: Partial<MarginPosition> = {}): MarginPosition {
  const m = (v: string) => ({ currency: 'USDT', value: d(v) });
  return {
    id,
    market: 'BTCUSDT',
    side: 'long',
    state: 'open',
    callPrice: d('50000'),
    liquidityPrice: d('47000'),
    isCalled: false,
    openPrice: d('60000'),
    collateral: m('100'),
    interest: m('0'),
    loan: m('100'),
    profit: m('0'),
    riskCoef: d('2'),
    createdAt: new Date(T0 + 1000).toISOString(),
    ...over,
  };
}

function setup() {
  const saved: Record<string, unknown> = {};
  const store = { get: (k: string) => saved[k], set: (k: string, v: Record<string, unknown>) => void (saved[k] = v) };
  const lines: { level: string; msg: string; fields: Record<string, unknown> }[] = [];
  const rec =
    (level: string) =>
    (fields: Record<string, unknown>, msg = '') =>
      void lines.push({ level, msg, fields });
  const logger = { info: rec('info'), warn: rec('warn'), error: rec('error'), debug: rec('debug') } as unknown as Logger;
  let now = T0;
  const owners = (restart = false) => {
    if (restart) now += 60_000;
    return new PositionOwners({ store, now: () => now, logger });
  };
  return { saved, store, lines, owners };
}

const req = { market: 'BTCUSDT', side: 'long', collateral: d('100'), riskCoef: d('2'), openPrice: d('60000') } as const;
const passed = (strategy: string): Verdict<Intent> => ({ ok: true, intent: { kind: 'marginOpen', strategy, ...req }, adjustments: [] }) as Verdict<Intent>;

describe('margin open write-ahead records', () => {
  it('journals the open before the request is sent and settles it with the answer', async () => {
    const s = setup();
    const owners = s.owners();
    let seenAtSend: unknown;
    const venue = {
      openPosition: async (_r: MarginRequest) => {
        seenAtSend = structuredClone(s.saved.marginOpensInFlight);
        return position(7);
      },
    };
    owners.noteVerdict(passed('trend'));
    await owners.wrapVenue(venue, 'main').openPosition(req);
    expect(Object.values(seenAtSend as Record<string, unknown>)).toEqual([
      {
        id: expect.any(String),
        strategy: 'trend',
        account: 'main',
        market: 'BTCUSDT',
        side: 'long',
        collateral: '100',
        riskCoef: '2',
        openPrice: '60000',
        at: T0,
      },
    ]);
    expect(s.saved.marginOpensInFlight).toEqual({});
    expect(s.saved.marginOwners).toEqual({ '7': 'trend' });
  });

  it('drops the record on a refusal; keeps it when no answer came, for the next start', async () => {
    const s = setup();
    const owners = s.owners();
    const failing = (err: Error) => ({ openPosition: (_r: MarginRequest): Promise<MarginPosition> => Promise.reject(err) });
    owners.noteVerdict(passed('a'));
    await expect(owners.wrapVenue(failing(new InsufficientBalanceError('402')), 'main').openPosition(req)).rejects.toThrow('402');
    expect(s.saved.marginOpensInFlight).toEqual({});
    owners.noteVerdict(passed('a'));
    await expect(owners.wrapVenue(failing(new RequestTimeoutError('timed out')), 'main').openPosition(req)).rejects.toThrow('timed out');
    expect(Object.values(s.saved.marginOpensInFlight as object)).toHaveLength(1);
    expect(owners.unsettledAccounts()).toEqual(['main']);
    expect(s.lines.at(-1)!.msg).toMatch(/outcome is unknown/);
  });

  it('in a running bot: an open left without its answer is the strategy’s once an account read shows one such position (review)', async () => {
    const s = setup();
    const owners = s.owners();
    owners.noteVerdict(passed('trend'));
    const timeout = { openPosition: (_r: MarginRequest): Promise<MarginPosition> => Promise.reject(new RequestTimeoutError('timed out')) };
    await expect(owners.wrapVenue(timeout, 'main').openPosition(req)).rejects.toThrow('timed out');
    // A read that does not show it yet concludes nothing; another strategy's open still awaiting its
    // answer makes the one unowned position ambiguous: it waits.
    owners.matchSynced('main', []);
    expect(owners.unsettledAccounts()).toEqual(['main']);
    let answer: (p: MarginPosition) => void = () => undefined;
    owners.noteVerdict(passed('other'));
    const pending = owners.wrapVenue({ openPosition: (_r: MarginRequest) => new Promise<MarginPosition>((r) => (answer = r)) }, 'main').openPosition(req);
    owners.matchSynced('main', [position(40)]);
    expect(owners.opener(40)).toBeUndefined();
    answer(position(41));
    await pending;
    expect(owners.opener(41)).toBe('other');
    owners.matchSynced('main', [position(40), position(41)]);
    expect(owners.opener(40)).toBe('trend');
    expect(owners.unsettledAccounts()).toEqual([]);
    expect(s.saved.marginOpensInFlight).toEqual({});
  });

  it('at the next start: exactly one unowned position of the market and side opened since is the strategy’s', () => {
    const s = setup();
    s.store.set('marginOwners', { '3': 'other' });
    s.store.set('marginOpensInFlight', {
      r1: { strategy: 'trend', account: 'main', market: 'BTCUSDT', side: 'long', collateral: '100', riskCoef: '2', openPrice: '60000', at: T0 },
    });
    const owners = s.owners(true);
    owners.reconcile('main', [
      position(3), // owned by another strategy
      position(4, { side: 'short' }),
      position(5, { market: 'ETHUSDT' }),
      position(6, { createdAt: new Date(T0 - MATCH_SKEW_MS - 1000).toISOString() }), // opened before the record
      position(8, { state: 'closed' }), // the match (closed since: still the strategy's trade)
    ]);
    expect(owners.opener(8)).toBe('trend');
    expect(owners.opener(6)).toBeUndefined();
    expect(s.saved.marginOpensInFlight).toEqual({});
    expect(s.saved.marginOwners).toEqual({ '3': 'other', '8': 'trend' });
    expect(s.lines.at(-1)).toMatchObject({ level: 'info', msg: expect.stringContaining("position #8 is trend's") });
  });

  it('none: the open did not happen (said); several: a warning names them and none is owned', () => {
    const s = setup();
    const rec = (at: number) => ({
      strategy: 'trend',
      account: 'main',
      market: 'BTCUSDT',
      side: 'long',
      collateral: '100',
      riskCoef: '2',
      openPrice: '60000',
      at,
    });
    s.store.set('marginOpensInFlight', { r1: rec(T0) });
    let owners = s.owners(true);
    owners.reconcile('main', [position(6, { createdAt: new Date(T0 - MATCH_SKEW_MS - 1000).toISOString() })]);
    expect(s.lines.at(-1)).toMatchObject({ level: 'warn', msg: expect.stringMatching(/did not happen/) });
    expect(owners.opener(6)).toBeUndefined();

    s.store.set('marginOpensInFlight', { r2: rec(T0) });
    owners = s.owners(true);
    owners.reconcile('prop:9', [position(20)]); // another account's list settles nothing of main
    expect(owners.unsettledAccounts()).toEqual(['main']);
    owners.reconcile('main', [position(20), position(21)]);
    expect(s.lines.at(-1)).toMatchObject({ level: 'warn', msg: expect.stringContaining('(#20, #21); none is taken as trend') });
    expect(owners.opener(20)).toBeUndefined();
    expect(owners.opener(21)).toBeUndefined();
    expect(s.saved.marginOpensInFlight).toEqual({});
  });

  it('a position opened long after the record is not its; of several, the one at its open price is (review)', () => {
    const s = setup();
    const rec = { strategy: 'trend', account: 'main', market: 'BTCUSDT', side: 'long', collateral: '100', riskCoef: '2', openPrice: '60000', at: T0 };
    // Killed before the open was sent; an hour later the user opens a long by hand.
    s.store.set('marginOpensInFlight', { r1: rec });
    let owners = s.owners(true);
    owners.reconcile('main', [position(6, { createdAt: new Date(T0 + MATCH_WINDOW_MS + 1000).toISOString() })]);
    expect(s.lines.at(-1)).toMatchObject({ level: 'warn', msg: expect.stringMatching(/did not happen/) });
    expect(owners.opener(6)).toBeUndefined();
    // Two candidates in the window: the one at the record's open price is the record's.
    s.store.set('marginOpensInFlight', { r2: rec });
    owners = s.owners(true);
    owners.reconcile('main', [position(7, { openPrice: d('60100') }), position(8)]);
    expect(owners.opener(8)).toBe('trend');
    expect(owners.opener(7)).toBeUndefined();
  });
});
