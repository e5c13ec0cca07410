/**
 * The reference asset equity, drawdown and PnL are counted in: one rule for every mode, so a
 * drawdown percentage means the same in a backtest and live. Over the markets of the run (the
 * kernel's symbols: live and paper the traded markets, a backtest its data series, which may add
 * markets loaded to value assets): `reference:` in the config when set (it must be an asset of one
 * of them); else USDT when one is quoted in USDT; else the quote asset of the first. Markets are split by the kernel's instruments (the
 * market catalog or the backtest's market specs), never by a symbol's suffix.
 */
export function referenceAsset(configured: string | undefined, symbols: readonly string[], split: (symbol: string) => { base: string; quote: string }): string {
  if (symbols.length === 0) throw new Error('reference asset: no traded market');
  const legs = symbols.map(split);
  if (configured !== undefined) {
    if (!legs.some((l) => l.base === configured || l.quote === configured)) {
      throw new RangeError(`reference: ${JSON.stringify(configured)} is not an asset of a traded market (${symbols.join(', ')})`);
    }
    return configured;
  }
  if (legs.some((l) => l.quote === 'USDT')) return 'USDT';
  return legs[0]!.quote;
}
