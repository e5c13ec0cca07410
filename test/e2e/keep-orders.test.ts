/**
 * Keeping the orders on stop, as documented: `mizan run --keep-orders` and the API's
 * `POST /api/v1/strategies/:name/stop {"keepOrders": true}` leave the open orders on the exchange.
 * The bundled grid cancelled its ladder in onStop whatever was asked (an audit finding): onStop now
 * learns `stop.keepOrders`. Two grids on a simulator on 127.0.0.1 (live, `--serve`): one stopped by
 * the API with keepOrders, the other by Ctrl-C with --keep-orders; every buy still rests afterwards.
 */
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { startMizan, waitFor, type MizanChild } from './run-mizan.js';
import { DRILL_KEY, handSim, tempDir } from './restart-helpers.js';
import { KEY_ENV } from '../scenario/helpers.js';

const tmp = tempDir('mizan-e2e-keep-orders-');
const CONTROL = 'control-token-0123456789abcdef';
let child: MizanChild | undefined;
afterAll(() => {
  if (child?.alive()) child.proc.kill('SIGKILL');
  tmp.remove();
});

describe('keeping the orders on stop', () => {
  it('the API stop with keepOrders and Ctrl-C with --keep-orders leave the grids’ buys on the exchange', async () => {
    const sim = await handSim('62550');
    try {
      const cfg = join(tmp.dir, 'grids.yaml');
      const grid = (name: string, spacing: number) =>
        `  - { name: ${name}, strategy: grid, markets: [BTCUSDT], resolution: "1", params: { levels: 2, spacingPct: ${spacing}, orderQuote: 20 } }`;
      writeFileSync(
        cfg,
        [
          'mode: live',
          `exchange: { simulator: false, baseUrl: ${JSON.stringify(sim.running.server.url)}, apiKey: "\${${KEY_ENV}}", timeoutMs: 2000 }`,
          'strategies:',
          grid('ga', 0.5),
          grid('gb', 0.7),
          `journal: { file: ${join(tmp.dir, 'grids.sqlite')} }`,
          'logging: { level: info, pretty: false }',
          '',
        ].join('\n'),
      );
      child = startMizan(['run', cfg, '--live', '--keep-orders', '--serve', '--port', '0'], { [KEY_ENV]: DRILL_KEY, MIZAN_SERVER_CONTROL_TOKEN: CONTROL });
      await waitFor('the four buys to rest', () => sim.open().filter((o) => o.side === 'BUY').length === 4, 60_000, child);
      await waitFor('the API address', () => /API on http:\/\/127\.0\.0\.1:\d+/.test(child!.out()), 30_000, child);
      const base = /API on (http:\/\/127\.0\.0\.1:\d+)/.exec(child.out())![1]!;
      const ids = () =>
        sim
          .open()
          .map((o) => o.clientOrderId)
          .sort();
      const resting = ids();

      const r = await fetch(`${base}/api/v1/strategies/ga/stop`, {
        method: 'POST',
        headers: { authorization: `Bearer ${CONTROL}`, 'content-type': 'application/json' },
        body: JSON.stringify({ keepOrders: true }),
      });
      expect(r.status, await r.text()).toBe(200);
      expect(ids(), child.out()).toEqual(resting);

      child.proc.kill('SIGINT');
      const exit = await child.exited;
      expect(exit.code, child.out()).toBe(0);
      // Before: the grids' onStop cancelled their ladders (tag grid-stop) whatever was asked.
      expect(ids(), child.out()).toEqual(resting);
      expect(child.out()).not.toMatch(/grid-stop/);
    } finally {
      await sim.stop();
    }
  }, 120_000);
});
