/**
 * A margin position's end is booked in `mizan run` as in a backtest (an audit finding: live and
 * paper never booked one: no trade, no realised PnL, no row in the summary, none in the journal's
 * positions table). Against a simulator on 127.0.0.1 (`--live`, the REST path: the position read
 * back, its fees from the exchange's margin orders):
 *  1. a strategy opens a long and closes it; Ctrl-C: the summary lists the trade with the pnl the
 *     exchange's figures give (profit − opening fee), the strategy's row counts it realised, and the
 *     equity change is that pnl (the accounting invariant: nothing else moved);
 *  2. the next run opens one (its status line counts it in `trades`) and is killed (SIGKILL); the
 *     position is closed on the exchange while the bot is down;
 *  3. the run after books that one at its first sync, once, and not the first one again;
 *  `mizan journal positions` (a child process) shows both rows: strategy, state, reason.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../src/core/decimal.js';
import { WallexRestClient } from '../../src/exchange/rest/client.js';
import { DRILL_KEY, handSim, liveYaml, REPO, tempDir } from './restart-helpers.js';
import { KEY_ENV } from '../scenario/helpers.js';
import { mizanSync, startMizan, type MizanChild } from './run-mizan.js';
import { waitFor as waitForCondition } from '../support/wait-for.js';

const tmp = tempDir('mizan-e2e-margin-booked-');
afterAll(() => tmp.remove());

describe('mizan run: margin positions are booked when they end', () => {
  it('lists the closed position in the summary and the journal, once across restarts', async () => {
    const sim = await handSim('62550');
    const journal = join(tmp.dir, 'mb.sqlite');
    const config = (params: Record<string, boolean>) => {
      const file = join(tmp.dir, `mb-${Object.keys(params).join('-') || 'default'}.yaml`);
      writeFileSync(
        file,
        liveYaml({ url: sim.running.server.url, journal, strategy: join(REPO, 'test/e2e/fixtures/margin-round-trip.ts'), params, name: 'mt' }),
      );
      return file;
    };
    const rest = new WallexRestClient({ baseUrl: sim.running.server.url, apiKey: DRILL_KEY });
    const children: MizanChild[] = [];
    const run = (file: string) => {
      const c = startMizan(['run', file, '--live'], { [KEY_ENV]: DRILL_KEY });
      children.push(c);
      return c;
    };
    const stop = async (c: MizanChild) => {
      c.proc.kill('SIGINT');
      const exit = await c.exited;
      expect(exit.code, c.out()).toBe(0);
      return c.out();
    };
    const positions = () => rest.getMarginPositions({});
    try {
      // 1. Open and close.
      const first = run(config({}));
      await waitForCondition(() => /margin position #\d+ closed: booked/.test(first.out()), {
        what: 'the close booked',
        timeout: 30_000,
        detail: () => first.out(),
      });
      const out1 = await stop(first);
      const p1 = (await positions()).find((p) => p.state === 'closed')!;
      const openFee = (await rest.getMarginOrders({ positionId: p1.id })).items.find((o) => o.purpose === 'open')!.fee!.value;
      expect(openFee.gt(0)).toBe(true);
      const pnl = p1.profit.value.minus(openFee);
      expect(pnl.isNegative(), 'fees and the spread: a loss at an unchanged price').toBe(true);
      expect(out1).toContain('margin positions closed (1):');
      expect(out1).toMatch(new RegExp(`mt\\s+BTCUSDT\\s+#${p1.id}\\s+long\\s+signal\\s+\\S+\\s+\\S+\\s+${pnl.toFixed(4).replace('.', '\\.')} USDT`));
      // The strategy's row: realised = the trade's pnl; the equity moved by exactly that (2 decimals shown).
      expect(out1).toMatch(new RegExp(`mt\\s+BTCUSDT\\s+0 BTC\\s+${pnl.toFixed(4).replace('.', '\\.')} USDT`));
      const equity = /equity\s+[\d,.]+ -> [\d,.]+ USDT \(([-+][\d,.]+)\)/.exec(out1)![1]!;
      expect(equity).toBe(pnl.toFixed(2));

      // 2. Open, killed, closed on the exchange while the bot is down.
      const second = run(config({ close: false }));
      let p2id: number | undefined;
      await waitForCondition(
        async () => {
          p2id = (await positions()).find((p) => p.state === 'open')?.id;
          return p2id !== undefined;
        },
        { what: 'the second position open', timeout: 30_000, interval: 300, detail: () => second.out() },
      );
      // Open, the position counts in the status line's `trades` (its profit less the opening fee it paid), not in `prices`.
      await waitForCondition(() => /trades -0\.[3-9]\d, prices [-+]0\.0\d\)/.test(second.out()), {
        what: 'a status line valuing the open position in trades',
        timeout: 30_000,
        detail: () => second.out(),
      });
      second.proc.kill('SIGKILL');
      await second.exited;
      const closed = await rest.closeMarginPosition(p2id!, new Decimal('62000'));
      expect(closed.state).toBe('closed');

      // 3. The restart books #2 once, and not #1 again.
      const third = run(config({ open: false, close: false }));
      await waitForCondition(() => new RegExp(`margin position #${p2id} closed: booked`).test(third.out()), {
        what: 'the position closed while down booked',
        timeout: 30_000,
        detail: () => third.out(),
      });
      const out3 = await stop(third);
      expect(out3).toContain('margin positions closed (1):');
      expect(out3).toMatch(new RegExp(`mt\\s+BTCUSDT\\s+#${p2id}\\s+long\\s+signal`));
      expect(out3).not.toContain(`#${p1.id} `);

      const table = mizanSync(['journal', 'positions', '--file', journal]);
      expect(table.code, table.out).toBe(0);
      for (const id of [p1.id, p2id!]) expect(table.out).toMatch(new RegExp(`\\s${id}\\s+mt\\s+BTCUSDT\\s+long\\s+closed\\s+user`));
      expect(table.out).toContain('2 margin positions');
    } finally {
      for (const c of children) if (c.alive()) c.proc.kill('SIGKILL');
      await sim.stop();
    }
  }, 120_000);
});
