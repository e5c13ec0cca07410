/**
 * A strategy cannot reach the REST client, a venue, the execution engine or the withdrawal call
 * through its context: everything reachable from the context (its properties, their prototypes,
 * and what its view accessors return) is walked in a running paper bot.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/logger.js';
import { parseConfig } from '../../src/config/index.js';
import { startBot, type Bot } from '../../src/runtime/bot.js';
import { WallexRestClient } from '../../src/exchange/rest/client.js';
import { ExecutionEngine } from '../../src/execution/engine.js';
import { RestVenue } from '../../src/venues/rest-venue.js';
import { SimVenue } from '../../src/venues/sim-venue.js';
import { SimulatedExchange } from '../../src/sim/exchange.js';
import { Journal } from '../../src/store/journal.js';
import { RiskEngine } from '../../src/risk/engine.js';
import type { StrategyContext } from '../../src/strategy/define.js';

const dir = mkdtempSync(join(tmpdir(), 'mizan-iso-'));
let bot: Bot | undefined;
afterAll(async () => {
  await bot?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const FORBIDDEN = [WallexRestClient, ExecutionEngine, RestVenue, SimVenue, SimulatedExchange, Journal, RiskEngine];
const FORBIDDEN_NAMES = /withdraw|createOrder|placeOrder|instantOrder|openPosition|submitOrder|cancelOrder|request/i;

function walk(root: unknown, found: string[]): number {
  const seen = new Set<unknown>();
  let visited = 0;
  const visit = (v: unknown, path: string, depth: number): void => {
    if (v === null || (typeof v !== 'object' && typeof v !== 'function') || seen.has(v) || depth > 8) return;
    seen.add(v);
    visited++;
    for (const C of FORBIDDEN) if (v instanceof C) found.push(`${path} is a ${C.name}`);
    if (typeof v === 'function' && v.name && FORBIDDEN_NAMES.test(v.name)) found.push(`${path} is function ${v.name}`);
    let o: object | null = v as object;
    while (o && o !== Object.prototype && o !== Function.prototype && o !== Array.prototype) {
      for (const k of Reflect.ownKeys(o)) {
        if (k === 'constructor' || k === 'prototype') continue;
        const desc = Object.getOwnPropertyDescriptor(o, k);
        if (!desc) continue;
        if (FORBIDDEN_NAMES.test(String(k)) && (typeof desc.value === 'function' || desc.get)) found.push(`${path}.${String(k)}`);
        if ('value' in desc) visit(desc.value, `${path}.${String(k)}`, depth + 1);
      }
      o = Object.getPrototypeOf(o);
    }
  };
  visit(root, 'ctx', 0);
  return visited;
}

describe('strategy isolation', () => {
  it('nothing reachable from a running strategy context can send an order or a withdrawal', async () => {
    const config = parseConfig(`
mode: paper
simulator: { seed: 4, speed: 2 }
strategies:
  - { name: spy, strategy: ./test/runtime/fixtures/ctx-spy.ts, markets: [BTCUSDT], resolution: "1" }
journal: { file: ${join(dir, 'j.sqlite')} }
`);
    bot = await startBot(config, { logger: silentLogger, intervals: { statusEveryMs: 0 } });
    const ctx = (globalThis as { __mizanCtx?: StrategyContext }).__mizanCtx!;
    expect(ctx).toBeDefined();
    const found: string[] = [];
    let visited = walk(ctx, found);
    // What the view accessors hand out is walked too.
    const views = [
      ctx.market('BTCUSDT'),
      ctx.book('BTCUSDT'),
      ctx.balance('USDT'),
      ctx.position('BTCUSDT'),
      ctx.openOrders(),
      ctx.marginPositions(),
      ctx.candles('BTCUSDT'),
      ctx.state,
      ctx.clock,
      ctx.log,
    ];
    for (const v of views) visited += walk(v, found);
    const book = ctx.book('BTCUSDT');
    if (book) visited += walk([book.health(), book.bids(5), book.asks(5)], found);
    expect(found).toEqual([]);
    expect(visited).toBeGreaterThan(20);
    // And the bot itself does hold those objects: the walk would have found them had they leaked.
    expect(walk(bot, [])).toBeGreaterThan(0);
    const leak: string[] = [];
    walk({ engine: bot.engine }, leak);
    expect(leak.length).toBeGreaterThan(0);
  }, 40_000);
});
