/**
 * Put a nearly time-ordered stream in time order: hold events for `windowMs` of stream time and
 * release them sorted (stable: equal times keep arrival order). An event that arrives later than
 * the window allows gets the time of the last released event (counted by `onClamp`).
 * Captures are in receive order, and exchange times disagree with it by up to ~100 ms (a depth
 * diff carries the end of its 100 ms window, trades inside it carry earlier times).
 */
export function* reorderByTime<T extends { time: number }>(source: Iterable<T>, windowMs: number, onClamp: () => void = () => {}): Generator<T> {
  const buf: T[] = [];
  let released = -Infinity;
  for (const ev of source) {
    if (ev.time < released) {
      onClamp();
      ev.time = released;
    }
    let i = buf.length;
    while (i > 0 && buf[i - 1]!.time > ev.time) i--;
    buf.splice(i, 0, ev);
    const newest = buf[buf.length - 1]!.time;
    let k = 0;
    while (k < buf.length && buf[k]!.time <= newest - windowMs) k++;
    if (k > 0) {
      for (const out of buf.splice(0, k)) {
        released = out.time;
        yield out;
      }
    }
  }
  for (const out of buf) yield out;
}
