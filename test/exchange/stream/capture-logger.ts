/** A Logger that records every call, for asserting what was logged. */
import type { LogFn, Logger } from '../../../src/core/logger.js';

export interface LogEntry {
  level: string;
  obj: object | undefined;
  msg: string | undefined;
}

export function captureLogger(entries: LogEntry[] = []): Logger & { entries: LogEntry[] } {
  const at =
    (level: string): LogFn =>
    (objOrMsg: object | string, msg?: string) => {
      if (typeof objOrMsg === 'string') entries.push({ level, obj: undefined, msg: objOrMsg });
      else entries.push({ level, obj: objOrMsg, msg });
    };
  const logger: Logger & { entries: LogEntry[] } = {
    entries,
    trace: at('trace'),
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    fatal: at('fatal'),
    child: () => logger,
  };
  return logger;
}
