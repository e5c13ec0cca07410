/**
 * Cross-field checks of `notifications:` (see schema-notify.ts): secrets only as environment
 * references (values never printed), a daily-summary event needs its schedule, none in backtests.
 */
import { isEnvReference } from './env.js';
import type { PathSegment } from './issues.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

export function checkNotifications(root: Obj, original: unknown, add: (path: PathSegment[], message: string) => void): void {
  const n = obj(root.notifications);
  if (!n) return;
  if (root.mode === 'backtest') {
    add(['notifications'], 'is for a running bot (mizan run); a backtest sends no notifications: remove it');
    return;
  }
  const written = arr(obj(obj(original)?.notifications)?.targets);
  arr(n.targets).forEach((t, i) => {
    const target = obj(t) ?? {};
    const w = obj(written[i]) ?? {};
    const path = ['notifications', 'targets', i];
    if (typeof w.token === 'string' && !isEnvReference(w.token))
      add([...path, 'token'], 'is written literally (value hidden); write token: ${TELEGRAM_BOT_TOKEN} and set the variable');
    if (target.format === 'discord' && typeof w.url === 'string' && !isEnvReference(w.url)) {
      add(
        [...path, 'url'],
        'is written literally (value hidden): a Discord webhook URL holds its secret; write url: ${DISCORD_WEBHOOK_URL} and set the variable',
      );
    }
    for (const [h, v] of Object.entries(obj(w.headers) ?? {})) {
      if (typeof v === 'string' && !isEnvReference(v))
        add([...path, 'headers', h], 'is written literally (value hidden); write the header value as ${ENV_NAME} and set the variable');
    }
    if (arr(target.events).includes('dailySummary') && n.dailySummary === undefined) {
      add([...path, 'events'], 'lists dailySummary, but notifications.dailySummary (at: "HH:MM") is not set');
    }
  });
}
