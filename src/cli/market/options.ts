/**
 * Option parsers of the market commands. Every error names the option and the value given, and is
 * a ParameterError (final: running the command again with the same value gives the same answer).
 */
import { ParameterError } from '../../core/errors.js';
import { RESOLUTIONS, type Resolution } from '../../core/types/market.js';
import { normalizeSymbol } from '../../market/market-catalog.js';

export const DEFAULT_EXCHANGE_URL = 'https://api.wallex.ir';

/** Integer option within [min, max]. */
export function intOption(name: string, min: number, max: number): (raw: string) => number {
  return (raw: string): number => {
    const n = Number(raw);
    if (raw.trim() === '' || !Number.isInteger(n) || n < min || n > max) {
      throw new ParameterError(`--${name}`, raw, `an integer from ${min} to ${max}`);
    }
    return n;
  };
}

export function urlOption(raw: string): string {
  if (!/^https?:\/\/[^\s/]+/.test(raw)) throw new ParameterError('--url', raw, 'an http(s) address such as https://api.wallex.ir or http://127.0.0.1:8080');
  return raw.replace(/\/+$/, '');
}

export function protocolOption(raw: string): 3 | 4 {
  if (raw === '3') return 3;
  if (raw === '4') return 4;
  throw new ParameterError('--protocol', raw, '3 (socket.io-client 2.x) or 4');
}

export function transportOption(raw: string): 'ws' | 'socketio' | 'auto' {
  const t = raw.trim().toLowerCase();
  if (t === 'ws' || t === 'socketio' || t === 'auto') return t;
  throw new ParameterError('--transport', raw, 'ws (plain WebSocket at /ws), socketio or auto');
}

export function resolutionOption(raw: string): Resolution {
  const r = raw.trim().toUpperCase();
  if ((RESOLUTIONS as readonly string[]).includes(r)) return r as Resolution;
  throw new ParameterError('--resolution', raw, `one of ${RESOLUTIONS.join(', ')} (minutes, or D / 1D / 2D / 3D)`);
}

/** A market symbol: ASCII letters and digits, upper-cased (invisible marks removed). */
export function symbolArgument(raw: string): string {
  const s = normalizeSymbol(raw);
  if (!/^[A-Z0-9]{2,30}$/.test(s)) throw new ParameterError('<symbol>', raw, 'a market symbol such as BTCTMN or ETHUSDT');
  return s;
}

/**
 * A time as Unix seconds (digits only; a value above 1e11 is taken as milliseconds) or ISO 8601
 * (`2024-05-01`, `2024-05-01T12:00:00Z`; without a zone it is UTC). Returns whole Unix seconds.
 */
export function timeOption(name: string): (raw: string) => number {
  return (raw: string): number => {
    const s = raw.trim();
    if (/^\d+(\.\d+)?$/.test(s)) {
      const n = Number(s);
      return Math.floor(n > 1e11 ? n / 1000 : n);
    }
    if (/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/i.test(s)) {
      const zoned = /(Z|[+-]\d{2}:?\d{2})$/i.test(s) || s.length === 10 ? s : `${s}Z`;
      const ms = Date.parse(zoned.replace(' ', 'T'));
      if (Number.isFinite(ms) && ms >= 0) return Math.floor(ms / 1000);
    }
    throw new ParameterError(`--${name}`, raw, 'Unix seconds or an ISO 8601 date such as 2024-05-01 or 2024-05-01T12:00:00Z');
  };
}

/** Resolve and await the first SIGINT or SIGTERM (Ctrl-C), or `signal` when given (tests). */
export function untilInterrupted(signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    if (signal?.aborted) return resolve();
    signal?.addEventListener('abort', done);
    process.on('SIGINT', done);
    process.on('SIGTERM', done);
  });
}
