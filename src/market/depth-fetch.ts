/** REST depth for several books: one `/v2/depth/all` call when enough are due, else one call each. */
import type { DepthSnapshot } from '../core/types/market.js';
import type { DepthSource, RawDepth } from './ports.js';

export type DepthOutcome = { ok: true; depth: RawDepth | DepthSnapshot } | { ok: false; error: unknown };

/** Never rejects: each symbol gets its depth or the error that prevented it. */
export async function fetchDepths(source: DepthSource, symbols: readonly string[], allDepthsThreshold: number): Promise<Map<string, DepthOutcome>> {
  const out = new Map<string, DepthOutcome>();
  const { getAllDepths } = source;
  if (symbols.length >= allDepthsThreshold && getAllDepths) {
    try {
      const all = await getAllDepths.call(source);
      for (const s of symbols) {
        const depth = all[s];
        out.set(s, depth ? { ok: true, depth } : { ok: false, error: new Error(`/v2/depth/all has no book for ${s}`) });
      }
    } catch (error) {
      for (const s of symbols) out.set(s, { ok: false, error });
    }
    return out;
  }
  await Promise.all(
    symbols.map(async (s) => {
      try {
        out.set(s, { ok: true, depth: await source.getDepth(s) });
      } catch (error) {
        out.set(s, { ok: false, error });
      }
    }),
  );
  return out;
}
