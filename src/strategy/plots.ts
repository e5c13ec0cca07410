/**
 * Plot series a strategy declares (`plots` in its definition) and draws per candle with
 * `ctx.plot(name, value)`: a backtest keeps them in its result and its HTML report draws them over
 * the candles (`pane: 'price'`) or in a pane of their own (any other pane name; series with the same
 * pane name share it). Live and paper runs check the call (a name that was not declared throws) and
 * keep the last points for the API and the dashboard (runtime/plot-ring.ts).
 */

export interface PlotSpec {
  /** `price`: over the market's candles; any other name: a pane of that name under them. Default `price`. */
  pane?: string;
  /** CSS colour of the line; default: one of the report's palette. */
  color?: string;
  /** Horizontal reference lines drawn in the pane (e.g. RSI's 30 and 70). */
  levels?: readonly number[];
}

export type PlotSpecs = Readonly<Record<string, PlotSpec>>;

/**
 * Where `ctx.plot` values go: the mode's collector (a backtest's, a live run's ring). `ctx.plot` opens
 * each series (strategy, market, declared name) once and then hands it every value.
 */
export type PlotSink = (strategy: string, symbol: string, name: string) => (value: number) => void;

/** A series `ctx.plot` has drawn: the arguments it was called with and where its values go. */
interface OpenedPlot {
  name: string;
  symbol: string | undefined;
  to: (value: number) => void;
}

/** Series a plotter keeps at hand (a strategy draws a few, every candle); more are looked up again. */
const OPENED = 32;
const dropped = (): void => undefined;

const NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/** Throws naming the plot and the field when a declaration is malformed (checked by defineStrategy). */
export function checkPlotSpecs(strategy: string, plots: unknown): void {
  if (plots === undefined) return;
  if (typeof plots !== 'object' || plots === null || Array.isArray(plots))
    throw new Error(`strategy ${strategy}: plots must be an object of name → { pane, color?, levels? }, got ${JSON.stringify(plots)}`);
  for (const [name, spec] of Object.entries(plots as Record<string, unknown>)) {
    const where = `strategy ${strategy}: plots.${name}`;
    if (!NAME.test(name)) throw new Error(`${where}: a plot name is letters, digits, _ . - (starting with a letter or _), got ${JSON.stringify(name)}`);
    if (typeof spec !== 'object' || spec === null || Array.isArray(spec))
      throw new Error(`${where} must be an object { pane, color?, levels? }, got ${JSON.stringify(spec)}`);
    const s = spec as Record<string, unknown>;
    for (const k of Object.keys(s)) if (k !== 'pane' && k !== 'color' && k !== 'levels') throw new Error(`${where}.${k}: unknown field (pane, color, levels)`);
    if (s.pane !== undefined && (typeof s.pane !== 'string' || !NAME.test(s.pane)))
      throw new Error(`${where}.pane must be a name (letters, digits, _ . -), got ${JSON.stringify(s.pane)}`);
    if (s.color !== undefined && (typeof s.color !== 'string' || !/^[#A-Za-z0-9(),.% ]+$/.test(s.color)))
      throw new Error(`${where}.color must be a CSS colour (#1e88e5, rgb(…), a name), got ${JSON.stringify(s.color)}`);
    if (s.levels !== undefined && (!Array.isArray(s.levels) || !s.levels.every((x) => typeof x === 'number' && Number.isFinite(x)))) {
      throw new Error(`${where}.levels must be a list of finite numbers, got ${JSON.stringify(s.levels)}`);
    }
  }
}

/** The pane a declared plot is drawn in. */
export const paneOf = (spec: PlotSpec | undefined): string => spec?.pane ?? 'price';

/**
 * The `ctx.plot` of one strategy instance: checks the name against the declaration, the value (a
 * number; NaN leaves a gap) and the market (optional when the instance trades one), then hands the
 * point to `sink` (none: checked and dropped).
 */
export function plotter(o: {
  strategy: string;
  plots: PlotSpecs | undefined;
  markets: readonly string[];
  sink?: PlotSink;
}): (name: string, value: number, symbol?: string) => void {
  const declared = o.plots ?? {};
  const names = Object.keys(declared);
  const sink = o.sink;
  const opened: OpenedPlot[] = [];
  // Checked in full the first time a name and market are drawn; then found here by identity.
  const valueCheck = (name: string, value: unknown): void => {
    if (typeof value !== 'number')
      throw new Error(`ctx.plot(${JSON.stringify(name)}, ${JSON.stringify(value)}): the value must be a number (NaN leaves a gap)`);
  };
  const open = (name: string, value: unknown, symbol: string | undefined): ((value: number) => void) => {
    if (typeof name !== 'string' || !Object.prototype.hasOwnProperty.call(declared, name)) {
      throw new Error(
        `ctx.plot(${JSON.stringify(name)}): not declared in the strategy's plots (${names.length > 0 ? `declared: ${names.join(', ')}` : 'it declares none'}); add it to defineStrategy({ plots: { ${typeof name === 'string' ? name : 'name'}: { pane: 'price' } } })`,
      );
    }
    valueCheck(name, value);
    let sym = symbol;
    if (sym === undefined) {
      if (o.markets.length !== 1)
        throw new Error(
          `ctx.plot(${JSON.stringify(name)}): strategy ${o.strategy} trades ${o.markets.length} markets; name the market: ctx.plot(${JSON.stringify(name)}, value, symbol)`,
        );
      sym = o.markets[0]!;
    } else if (!o.markets.includes(sym)) {
      throw new Error(
        `ctx.plot(${JSON.stringify(name)}, value, ${JSON.stringify(sym)}): strategy ${o.strategy} does not trade ${sym} (markets: ${o.markets.join(', ')})`,
      );
    }
    const to = sink ? sink(o.strategy, sym, name) : dropped;
    if (opened.length < OPENED) opened.push({ name, symbol, to });
    return to;
  };
  return (name, value, symbol) => {
    for (let i = 0; i < opened.length; i++) {
      const p = opened[i]!;
      if (p.name === name && p.symbol === symbol) {
        if (typeof value !== 'number') valueCheck(name, value);
        p.to(value);
        return;
      }
    }
    open(name, value, symbol)(value);
  };
}
