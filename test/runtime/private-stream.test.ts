/** balanceUpdated into the portfolio: the changed assets replace their values, the others stay. */
import { describe, expect, it } from 'vitest';
import { d } from '../../src/core/decimal.js';
import { parsePrivateMessage } from '../../src/exchange/stream/private-parse.js';
import { Portfolio } from '../../src/portfolio/portfolio.js';
import { mergeBalances } from '../../src/runtime/private-stream.js';
import { loadSample } from '../exchange/stream/samples.js';
import { testSplit } from '../support/instruments.js';

describe('mergeBalances (balanceUpdated)', () => {
  it('replaces the reported assets and keeps the rest of the last sync', () => {
    const p = new Portfolio({ split: testSplit, price: () => undefined, reference: 'USDT' });
    p.syncBalances(
      'main',
      { USDT: { asset: 'USDT', fiat: false, value: d('1000'), locked: d('10') }, TMN: { asset: 'TMN', fiat: true, value: d('5'), locked: d('0') } },
      1,
    );
    const m = parsePrivateMessage(loadSample('ws_raw_private_balanceUpdated__developers-wallex-ir.json'), false, 0);
    if (m.kind !== 'balanceUpdated') throw new Error(m.kind);
    mergeBalances(p, m.balances, m.timestamp);
    expect([p.balance('TMN').value.toFixed(), p.balance('TMN').locked.toFixed()]).toEqual(['16033085', '2507491']);
    expect([p.balance('USDT').value.toFixed(), p.balance('USDT').locked.toFixed()]).toEqual(['1000', '10']);
    expect(p.assets().sort()).toEqual(['TMN', 'USDT']);
  });
});
