/**
 * otc-dca: dollar-cost averaging through instant (OTC) orders: on every tick of its cron schedule,
 * buy a fixed quote amount (e.g. Toman) of the market's base asset at the instant price. A buy that
 * was denied (the bot halted, a risk limit) does not count toward `maxBuys`; a tick missed while the
 * bot was halted is not caught up after the resume.
 */
import { defineStrategy, instant, quote } from '../src/index.js';

export default defineStrategy({
  name: 'otc-dca',
  description: 'Scheduled instant buy of a fixed quote amount (set `schedule.cron` in the config).',
  params: {
    amount: { type: 'number', default: 1_000_000, min: 1, description: 'quote amount bought per tick (Toman on TMN markets)' },
    maxBuys: { type: 'int', default: 0, min: 0, description: 'stop after this many buys (0: no limit)' },
  },
  create(ctx) {
    return {
      onSchedule() {
        const done = ctx.state.get<number>('buys') ?? 0;
        if (ctx.params.maxBuys > 0 && done >= ctx.params.maxBuys) return;
        ctx.state.set('buys', done + 1);
        return ctx.markets.map((symbol) => instant('BUY', symbol, quote(ctx.params.amount), `dca-${done + 1}`));
      },
      onDenied(d) {
        // The tick's buy did not happen: uncount it (once per tick, whatever the number of markets).
        const done = ctx.state.get<number>('buys') ?? 0;
        if (d.intent.kind === 'instant' && done > 0 && d.intent.tag === `dca-${done}`) ctx.state.set('buys', done - 1);
      },
    };
  },
});
