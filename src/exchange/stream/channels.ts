/**
 * Stream channel names: `<SYMBOL>@buyDepth`, `<SYMBOL>@sellDepth`, `<SYMBOL>@trade`,
 * `<SYMBOL>@marketCap` and `all@price`. Names copied from the Persian documentation can carry
 * invisible marks (U+064E); cleaning strips every non-ASCII character and all whitespace before
 * validating, and upper-cases the symbol.
 */
import { ParameterError } from '../../core/errors.js';

/** What a channel carries; the watchdog's silence limits and the malformed counters use it. */
export type ChannelKind = 'depth' | 'trade' | 'marketCap' | 'price';

export type DepthSide = 'bid' | 'ask';

export interface ChannelInfo {
  /** The cleaned name, as sent in `subscribe`. */
  channel: string;
  kind: ChannelKind;
  /** Upper-case market symbol; `all` for `all@price`. */
  symbol: string;
  /** Depth channels only: `buyDepth` carries bids, `sellDepth` asks. */
  side?: DepthSide;
}

const SUFFIXES: Record<string, { suffix: string; kind: ChannelKind; side?: DepthSide }> = {
  buydepth: { suffix: 'buyDepth', kind: 'depth', side: 'bid' },
  selldepth: { suffix: 'sellDepth', kind: 'depth', side: 'ask' },
  trade: { suffix: 'trade', kind: 'trade' },
  marketcap: { suffix: 'marketCap', kind: 'marketCap' },
};

const EXPECTED = '<SYMBOL>@buyDepth|sellDepth|trade|marketCap or all@price';
// Printable ASCII without the space: everything else (non-ASCII marks, whitespace, controls) goes.
const NOT_PRINTABLE_ASCII = /[^\x21-\x7E]/g;
const SYMBOL = /^[A-Z0-9]{2,30}$/;

/** Strip non-ASCII characters and whitespace. Does not validate. */
export function stripChannel(raw: string): string {
  return raw.replace(NOT_PRINTABLE_ASCII, '');
}

/**
 * Clean and validate a channel name. Throws ParameterError (final) naming the raw value when the
 * cleaned name is not a known channel.
 */
export function parseChannel(raw: unknown): ChannelInfo {
  if (typeof raw !== 'string') throw new ParameterError('channel', raw, EXPECTED);
  const cleaned = stripChannel(raw);
  const at = cleaned.indexOf('@');
  if (at <= 0 || at !== cleaned.lastIndexOf('@')) throw new ParameterError('channel', raw, EXPECTED);
  const symbol = cleaned.slice(0, at).toUpperCase();
  const suffix = cleaned.slice(at + 1).toLowerCase();
  if (symbol === 'ALL' && suffix === 'price') return { channel: 'all@price', kind: 'price', symbol: 'all' };
  const known = SUFFIXES[suffix];
  if (known === undefined || !SYMBOL.test(symbol) || symbol === 'ALL') {
    throw new ParameterError('channel', raw, EXPECTED);
  }
  const info: ChannelInfo = { channel: `${symbol}@${known.suffix}`, kind: known.kind, symbol };
  if (known.side !== undefined) info.side = known.side;
  return info;
}

/** Clean and validate; returns the canonical channel name. */
export function cleanChannel(raw: string): string {
  return parseChannel(raw).channel;
}

/** Channel names for a market: both depth sides, and optionally trades and statistics. */
export function marketChannels(symbol: string, kinds: { depth?: boolean; trade?: boolean; marketCap?: boolean } = { depth: true }): string[] {
  const out: string[] = [];
  if (kinds.depth !== false) out.push(cleanChannel(`${symbol}@buyDepth`), cleanChannel(`${symbol}@sellDepth`));
  if (kinds.trade === true) out.push(cleanChannel(`${symbol}@trade`));
  if (kinds.marketCap === true) out.push(cleanChannel(`${symbol}@marketCap`));
  return out;
}
