/**
 * Which strategies of a running bot are still warming up or have not signalled yet (test/e2e/status-progress.test.ts):
 * a paper bot with 10 s candles and a slow average of 8 trades nothing for its first 80 s, and the
 * status line says why. The warm-up is the strategy's declared one (`warmup(params)`: closed candles
 * it needs before it can decide) against the closed candles it has seen at its resolution (the
 * fewest of its markets); "signalled" is any intent returned since the start.
 */
import type { TradingCore } from '../kernel/trading-core.js';

export interface StrategyProgress {
  name: string;
  /** Present while the declared warm-up is not over. */
  warmingUp?: { seen: number; need: number };
  /** Whether it returned any intent since the start. */
  signalled: boolean;
}

export function strategyProgress(core: TradingCore): StrategyProgress[] {
  const out: StrategyProgress[] = [];
  for (const inst of core.instances) {
    let need: number | undefined;
    try {
      need = inst.definition.warmup?.(inst.params);
    } catch {
      need = undefined; // a warmup() that throws declares nothing (the backtest reports it)
    }
    const seen = inst.markets.length ? Math.min(...inst.markets.map((m) => core.candlesSeen(m, inst.resolutionSec))) : 0;
    const runner = core.runners.get(inst.name);
    const p: StrategyProgress = { name: inst.name, signalled: (runner?.intentsEmitted ?? 0) > 0 };
    if (need !== undefined && Number.isFinite(need) && seen < need) p.warmingUp = { seen, need: Math.ceil(need) };
    out.push(p);
  }
  return out;
}

/** The status line's part: `btc-sma warming up 5/8  no signal yet: btc-grid` (empty once all signalled). */
export function progressText(list: readonly StrategyProgress[]): string {
  const warming = list.filter((p) => p.warmingUp).map((p) => `${p.name} warming up ${p.warmingUp!.seen}/${p.warmingUp!.need}`);
  const silent = list.filter((p) => !p.warmingUp && !p.signalled).map((p) => p.name);
  return [warming.join(', '), silent.length ? `no signal yet: ${silent.join(', ')}` : ''].filter((s) => s !== '').join('  ');
}
