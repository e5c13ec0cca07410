/**
 * The last denials of each strategy, for the API (moved out of bot-adapter.ts).
 */
import type { Bot } from '../runtime/bot.js';
import type { DenialDto } from './port.js';

const DENIALS_KEPT = 50;

/**
 * The last denials of each strategy, for the API. Made from the bot's parts before any strategy
 * starts (`startBot`'s `attach`), so the denials of the first moments (an intent of `onStart`, the
 * first candle) are listed too; the adapter made after `startBot` returns takes it over.
 */
export class DenialLog {
  private readonly byStrategy = new Map<string, DenialDto[]>();
  private listener: ((d: DenialDto) => void) | undefined;
  private readonly off: () => void;

  /** Every denial the strategies get: risk's, and the exchange's refusals (rule `exchange`), from the trading core. */
  constructor(parts: Pick<Bot, 'core'>, now: () => number = () => Date.now()) {
    this.off = parts.core.onDenial((d) => {
      const i = d.intent;
      const symbol = 'symbol' in i ? i.symbol : 'market' in i ? i.market : null;
      this.add({ time: now(), strategy: i.strategy, rule: d.rule, reason: d.reason, intent: i.kind, symbol });
    });
  }

  private add(d: DenialDto): void {
    const list = this.byStrategy.get(d.strategy) ?? [];
    list.push(d);
    if (list.length > DENIALS_KEPT) list.shift();
    this.byStrategy.set(d.strategy, list);
    this.listener?.(d);
  }

  /** The strategy's last denials, oldest first. */
  recent(strategy: string): DenialDto[] {
    return [...(this.byStrategy.get(strategy) ?? [])];
  }

  /** Told of each new denial (one listener: the adapter's stream). */
  onDenial(listener: ((d: DenialDto) => void) | undefined): void {
    this.listener = listener;
  }

  close(): void {
    this.listener = undefined;
    this.off();
  }
}
