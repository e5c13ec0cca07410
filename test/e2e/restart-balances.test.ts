/**
 * A restart's balances (an audit finding): a fill that happened while the bot was down was booked,
 * with the journal's fills, onto balances not yet read from the exchange, and a denial then cited
 * them ("only -0.0012 BTC is free"). `mizan run --live` (child process) against a simulator on
 * 127.0.0.1 runs a grid; its buys fill, their sells rest; the bot is killed with SIGKILL and the
 * sells fill while it is down. It starts again on the same journal while the exchange fails its
 * balance reads (503 through a proxy): the grid's new ladder is denied because the account has not
 * been read, never against a made-up balance; once the reads answer, the ladder is laid.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startRewriteProxy } from '../support/rewrite-proxy.js';
import { handSim, kill9, liveYaml, startMizan, tempDir, waitFor, type Child } from './restart-helpers.js';

const tmp = tempDir('mizan-e2e-restart-bal-');
afterAll(() => tmp.remove());

const denials = (out: string): string[] =>
  out
    .split('\n')
    .filter((l) => l.includes('risk: denied'))
    .map((l) => String((JSON.parse(l) as { reason?: string }).reason));

describe('a restart after fills while the bot was down (live mode against the simulator)', () => {
  it('checks no intent against balances the exchange has not reported', async () => {
    const sim = await handSim('62550');
    let failBalances = false;
    const proxy = await startRewriteProxy(sim.running.server.url, (req) =>
      failBalances && req.url.startsWith('/v1/account/balances')
        ? { answer: { status: 503, body: JSON.stringify({ success: false, code: 503, message: 'unavailable', result: {} }) } }
        : undefined,
    );
    const journal = join(tmp.dir, 'bal.sqlite');
    const config = join(tmp.dir, 'bal.yaml');
    writeFileSync(
      config,
      liveYaml({ url: proxy.url, journal, strategy: 'grid', params: { levels: 2, spacingPct: 0.5, orderQuote: 20 } }).replace(
        `  baseUrl: ${proxy.url}\n`,
        `  baseUrl: ${proxy.url}\n  stream: { url: ${sim.running.server.url} }\n  startupRetryMs: 1000\n`,
      ),
    );
    const sells = () => sim.orders().filter((o) => o.side === 'SELL');
    let child: Child | undefined;
    try {
      child = startMizan(config);
      await waitFor('the two buys to rest', () => sim.open().filter((o) => o.side === 'BUY').length === 2, 30_000);
      sim.price('61500');
      await waitFor('the buys to fill and their sells to rest', () => sells().filter((o) => o.status === 'NEW').length === 2, 30_000);
      await kill9(child);
      sim.price('63500');
      await waitFor('the sells to fill while the bot is down', () => sells().filter((o) => o.status === 'FILLED').length === 2, 10_000);

      failBalances = true;
      const buysBefore = sim.orders().filter((o) => o.side === 'BUY').length;
      child = startMizan(config);
      await waitFor('the restarted bot to recover the sells', () => /recovered 2 open order/.test(child!.out()), 30_000);
      await waitFor('the new ladder to be denied', () => denials(child!.out()).length > 0, 30_000);
      const early = denials(child.out());
      expect(
        early.every((r) => /^the balances of main have not been read from the exchange yet/.test(r)),
        early.join('\n'),
      ).toBe(true);
      expect(sim.orders().filter((o) => o.side === 'BUY').length).toBe(buysBefore);

      failBalances = false;
      await waitFor('the ladder once the account is read', () => sim.open().filter((o) => o.side === 'BUY').length === 2, 60_000);
      const all = denials(child.out());
      expect(
        all.filter((r) => / is free /.test(r)),
        all.join('\n'),
      ).toEqual([]);
      child.proc.kill('SIGINT');
      expect((await child.exited).code, child.out()).toBe(0);
      child = undefined;
    } catch (e) {
      throw new Error(`${(e as Error).message}\n${child?.out() ?? ''}`);
    } finally {
      if (child) await kill9(child);
      await proxy.close();
      await sim.stop();
    }
  }, 180_000);
});
