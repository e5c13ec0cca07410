/**
 * The private stream in the composition root: in live mode, with `exchange.stream.privateKey` set,
 * a PrivateStreamClient feeds the order tracker (PrivateStreamTracker: fills from `tradeDetails`,
 * states from `orderSaved`, polling slowed to a safety net while the stream covers an order) and the
 * portfolio's balances (`balanceUpdated`: the changed assets replace their synced values until the
 * next full sync). Without the key (or in paper mode, whose venue pushes its updates in-process)
 * orders are tracked by polling alone.
 */
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { Balance, Balances } from '../core/types/account.js';
import type { MizanConfig } from '../config/schema.js';
import { PrivateStreamClient } from '../exchange/stream/private-client.js';
import type { ExecutionEngine } from '../execution/engine.js';
import { PrivateStreamTracker } from '../venues/private-stream.js';
import type { Portfolio } from '../portfolio/portfolio.js';
import { MAIN_ACCOUNT } from '../core/account.js';

export interface PrivateStreamWiring {
  client: PrivateStreamClient;
  tracker: PrivateStreamTracker;
  stop(): void;
}

export interface PrivateStreamDeps {
  config: MizanConfig;
  /** Where the stream is when `exchange.stream.url` is not set. */
  baseUrl: string;
  engine: ExecutionEngine;
  portfolio: Portfolio;
  clock: Clock;
  logger: Logger;
}

/** Start following the private stream; undefined when it is not configured for this mode. */
export function startPrivateStream(d: PrivateStreamDeps): PrivateStreamWiring | undefined {
  const key = d.config.exchange.stream.privateKey;
  if (key === undefined) return undefined;
  if (d.config.mode !== 'live') {
    d.logger.info({ mode: d.config.mode }, 'exchange.stream.privateKey is set but only live mode uses the private stream');
    return undefined;
  }
  const client = new PrivateStreamClient({
    url: d.config.exchange.stream.url ?? d.baseUrl,
    transport: d.config.exchange.stream.transport,
    protocol: d.config.exchange.stream.protocol,
    streamKey: key,
    clock: d.clock,
    logger: d.logger,
  });
  const tracker = new PrivateStreamTracker({ engine: d.engine, stream: client, clock: d.clock, logger: d.logger.child({ component: 'exec' }) });
  tracker.start();
  client.on('balanceUpdated', (balances, ts) => mergeBalances(d.portfolio, balances, ts));
  // The client reconnects by itself; until it is up, orders are polled at the adaptive pace.
  void client.connect();
  return {
    client,
    tracker,
    stop() {
      tracker.stop();
      client.close();
    },
  };
}

/** The changed assets replace their values; the others keep those of the last sync. */
export function mergeBalances(portfolio: Portfolio, changed: Balance[], time: number, account = MAIN_ACCOUNT): void {
  const merged: Balances = {};
  for (const asset of portfolio.assets(account)) {
    const b = portfolio.balance(asset, account);
    merged[asset] = { asset, fiat: asset === 'TMN', value: b.value, locked: b.locked };
  }
  for (const b of changed) merged[b.asset] = b;
  // A few assets: the account counts as read only once a whole read came (the start's).
  portfolio.syncBalances(account, merged, time, portfolio.balancesRead(account));
}
