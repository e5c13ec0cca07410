/**
 * `backtest.closeAtEnd: true`: after the last candle has been handled and the strategies stopped (they
 * do not see these closing fills, so they cannot react to them), every strategy's open orders
 * are cancelled, what it holds is sold with a market order and its margin positions are closed, at
 * the last close (± `slippagePct`, the taker fee; the volume cap of the last candle applies), through
 * the same risk and execution path as any intent. The trades then end `close at end` instead of
 * `open at end` (valued at the last close without fees), and the last equity point is the account
 * after those closing costs. An intent risk denies (a position below the market's minimum quantity,
 * say) leaves that position `open at end`, counted as a denial.
 */
import type { Intent } from '../core/intents.js';
import type { Series } from './data.js';
import { equityValuer } from './equity-value.js';
import { BACKTEST_ACCOUNT, type Harness } from './setup.js';
import { parseMarginPosition } from '../exchange/parse/margin.js';
import { CLOSE_AT_END } from '../portfolio/trade-record.js';
import { MAIN_ACCOUNT } from '../core/account.js';
import type { EquityRecorder } from './equity-record.js';

async function settle(h: Harness, intents: Intent[]): Promise<void> {
  for (const intent of intents) {
    const p = h.core.process([intent]);
    if (p) await p;
    h.changes.eventsQueued();
  }
  for (let i = 0; i < 10 && h.changes.takeEvents(); i++) {
    const d = h.core.idle();
    if (d) await d;
  }
}

/** Close everything at the last close (see the file comment); the curve's last point is re-valued. */
export async function closeAtEnd(h: Harness, series: Series[], curve: EquityRecorder): Promise<void> {
  h.fill.atEnd = true;
  const names = [...h.core.runners.keys()];
  // 1. Open orders: cancelled, so what they lock can be sold.
  const cancels: Intent[] = [];
  for (const o of h.engine.liveOrders()) {
    if (!cancels.some((c) => c.kind === 'cancelAll' && c.strategy === o.strategy && c.symbol === o.symbol))
      cancels.push({ kind: 'cancelAll', strategy: o.strategy, symbol: o.symbol });
  }
  await settle(h, cancels);
  // 2. Spot holdings of each strategy: one market sell each.
  const sells: Intent[] = [];
  for (const p of h.portfolio.positions.all()) {
    if (!p.quantity.gt(0) || !names.includes(p.strategy) || !h.books.has(p.symbol)) continue;
    sells.push({
      kind: 'order',
      strategy: p.strategy,
      symbol: p.symbol,
      side: 'SELL',
      type: 'MARKET',
      size: { kind: 'base', quantity: p.quantity },
      tag: CLOSE_AT_END,
    });
  }
  await settle(h, sells);
  // 3. Margin positions: closed at the last close, at the price the closing side of its book offers
  //    (given here: after the last candle there is no next open for a close without a price to meet).
  const closes: Intent[] = [];
  for (const w of h.desks.margin.list(BACKTEST_ACCOUNT, { active: true })) {
    const p = parseMarginPosition(w);
    const owner = h.owners.owner(p);

    if (!owner || !names.includes(owner) || p.state !== 'open') continue;
    // At the price the closing side of the last close's book offers (a close at the mid would wait).
    const q = h.fill.endQuote(p.market);
    if (q) h.trades.closedAtEnd.add(p.id);
    if (q) closes.push({ kind: 'marginClose', strategy: owner, positionId: p.id, price: p.side === 'long' ? q.bid : q.ask, tag: CLOSE_AT_END });
  }
  if (closes.length > 0) {
    await settle(h, closes);

    await h.core.executor.syncMargin(MAIN_ACCOUNT);
    h.refreshMargin();
  }
  h.fill.atEnd = false;
  if (curve.length === 0) return;
  // The account after the closing costs, at the same (last) time.
  h.changes.balancesMoved();
  curve.setLast(equityValuer(h, series, h.unpriced, h.unvalued)(h.clock.now()));
}
