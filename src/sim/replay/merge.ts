/** Merge sources into one time-ordered stream (ties: the source listed first goes first). */
import type { ReplayEvent, ReplaySource } from './types.js';

export function* mergeSources(sources: readonly ReplaySource[]): Generator<ReplayEvent> {
  const its = sources.map((s) => s.events());
  const heads: (ReplayEvent | undefined)[] = its.map((it) => {
    const r = it.next();
    return r.done ? undefined : r.value;
  });
  for (;;) {
    let k = -1;
    for (let i = 0; i < heads.length; i++) {
      const h = heads[i];
      if (h && (k < 0 || h.time < heads[k]!.time)) k = i;
    }
    if (k < 0) return;
    yield heads[k]!;
    const r = its[k]!.next();
    heads[k] = r.done ? undefined : r.value;
  }
}
