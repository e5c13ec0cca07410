/**
 * The last log lines of the process, for the API's logs tail and the stream's `log` topic. It is fed
 * by the logger's tap (src/runtime/logger.ts), after secrets were removed from each line.
 */
import type { LogLineDto } from './port.js';

export class LogRing {
  private readonly lines: LogLineDto[] = [];
  private readonly listeners = new Set<(l: LogLineDto) => void>();

  constructor(private readonly capacity = 1_000) {}

  /** A serialised pino line (JSON); anything else is skipped. */
  push = (text: string): void => {
    let line: Record<string, unknown>;
    try {
      line = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return;
    }
    const l: LogLineDto = {
      level: typeof line.level === 'number' ? line.level : 30,
      time: typeof line.time === 'number' ? line.time : Date.now(),
      msg: typeof line.msg === 'string' ? line.msg : '',
      line,
    };
    this.lines.push(l);
    if (this.lines.length > this.capacity) this.lines.splice(0, this.lines.length - this.capacity);
    for (const f of this.listeners) f(l);
  };

  /** The newest `limit` lines at `minLevel` or above, oldest first. */
  tail(limit: number, minLevel = 0): LogLineDto[] {
    const out: LogLineDto[] = [];
    for (let i = this.lines.length - 1; i >= 0 && out.length < limit; i--) if (this.lines[i]!.level >= minLevel) out.push(this.lines[i]!);
    return out.reverse();
  }

  on(f: (l: LogLineDto) => void): () => void {
    this.listeners.add(f);
    return () => this.listeners.delete(f);
  }
}
