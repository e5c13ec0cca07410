/**
 * `notifications:`: webhooks a running bot (`mizan run`, paper and live) posts to: generic JSON,
 * the Telegram Bot API's sendMessage, Discord. Secrets (the Telegram bot token, a Discord webhook
 * URL, header values of a JSON webhook) are environment references (checks.ts refuses literals).
 * Backtests send none.
 */
import * as z from 'zod';
import { positiveInt, timeZone } from './fields.js';

const NOTIFY_FORMATS = ['json', 'telegram', 'discord'] as const;
type NotifyFormat = (typeof NOTIFY_FORMATS)[number];

export const NOTIFY_EVENTS = ['fills', 'denials', 'tradingState', 'errors', 'stream', 'dailySummary'] as const;
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number];

export const TELEGRAM_API = 'https://api.telegram.org';

const httpUrl = (description: string) =>
  z
    .string({ error: 'is not a URL' })
    .refine((s) => /^https?:\/\/[^\s/]+/.test(s) && URL.canParse(s), { error: 'is not an http(s) URL' })
    .describe(description);

const seconds = (description: string, max: number) =>
  z
    .number({ error: 'is not a number of seconds' })
    .min(1, { error: `must be from 1 to ${max} seconds` })
    .max(max, { error: `must be from 1 to ${max} seconds` })
    .describe(description);

/** Which format needs which fields (and may have which). */
const FIELDS: Record<NotifyFormat, { required: string[]; allowed: string[] }> = {
  json: { required: ['url'], allowed: ['url', 'headers'] },
  telegram: { required: ['token', 'chatId'], allowed: ['token', 'chatId', 'parseMode', 'baseUrl'] },
  discord: { required: ['url'], allowed: ['url', 'embeds'] },
};
const FORMAT_FIELDS = ['url', 'headers', 'token', 'chatId', 'parseMode', 'baseUrl', 'embeds'] as const;

const notifyTargetSchema = z
  .strictObject({
    name: z
      .string({ error: 'is not a string' })
      .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/, { error: 'is not a valid name (1 to 32 letters, digits, - and _)' })
      .optional()
      .describe('Name of the target in log lines (default: its format and position, e.g. telegram#0)'),
    format: z
      .enum(NOTIFY_FORMATS, { error: `is not a notification format (allowed: ${NOTIFY_FORMATS.join(', ')})` })
      .describe('json (POST of a JSON body), telegram (Bot API sendMessage) or discord (webhook)'),
    events: z
      .array(z.enum(NOTIFY_EVENTS, { error: `is not a notification event (allowed: ${NOTIFY_EVENTS.join(', ')})` }), { error: 'is not a list of events' })
      .min(1, { error: 'must list at least one event' })
      .optional()
      .describe(`Events sent to this target (default: all: ${NOTIFY_EVENTS.join(', ')}; dailySummary needs notifications.dailySummary)`),
    url: z
      .string({ error: 'is not a string' })
      .min(1, { error: 'must not be empty' })
      .optional()
      .describe(
        'json: the URL the JSON body is POSTed to; discord: the webhook URL, as an environment reference (it embeds the webhook secret), e.g. ${DISCORD_WEBHOOK_URL}',
      ),
    headers: z
      .record(z.string().regex(/^[A-Za-z0-9-]{1,64}$/, { error: 'is not a header name' }), z.string({ error: 'is not a string (write it as ${ENV_NAME})' }), {
        error: 'is not a map of header names to values',
      })
      .optional()
      .describe('json: extra request headers (e.g. Authorization), values as environment references'),
    token: z
      .string({ error: 'is not a string (write it as ${ENV_NAME})' })
      .regex(/^[0-9]{1,20}:[A-Za-z0-9_-]{20,100}$/, { error: 'is not a Telegram bot token (digits:letters, as BotFather gives it)' })
      .optional()
      .describe('telegram: the bot token as an environment reference, e.g. ${TELEGRAM_BOT_TOKEN}'),
    chatId: z
      .union([z.string().regex(/^(-?[0-9]{1,20}|@[A-Za-z0-9_]{5,64})$/), z.number().int()], { error: 'is not a Telegram chat id (a number, or @channelname)' })
      .optional()
      .describe('telegram: chat_id (a number, or @channelname)'),
    parseMode: z
      .enum(['HTML', 'MarkdownV2'], { error: 'is not a Telegram parse mode (allowed: HTML, MarkdownV2)' })
      .optional()
      .describe('telegram: parse_mode (the text is escaped for it); default plain text'),
    baseUrl: httpUrl(`telegram: the Bot API's address (default ${TELEGRAM_API})`).optional(),
    embeds: z.boolean({ error: 'is not true or false' }).optional().describe('discord: send an embed (title, fields, colour) instead of plain content'),
  })
  .superRefine((t, ctx) => {
    const f = FIELDS[t.format];
    if (!f) return;
    for (const k of f.required)
      if (t[k as keyof typeof t] === undefined) ctx.addIssue({ code: 'custom', path: [k], message: `is required for format ${t.format}` });
    for (const k of FORMAT_FIELDS) {
      if (t[k] !== undefined && !f.allowed.includes(k)) {
        const owners = NOTIFY_FORMATS.filter((x) => FIELDS[x].allowed.includes(k));
        ctx.addIssue({ code: 'custom', path: [k], message: `is for format ${owners.join(' or ')}, not ${t.format}` });
      }
    }
    if (t.url !== undefined && !(/^https?:\/\/[^\s/]+/.test(t.url) && URL.canParse(t.url)))
      ctx.addIssue({ code: 'custom', path: ['url'], message: 'is not an http(s) URL' });
  });

export const notificationsSchema = z
  .strictObject({
    targets: z
      .array(notifyTargetSchema, { error: 'is not a list of targets' })
      .min(1, { error: 'must list at least one target' })
      .describe('Webhooks to post to'),
    denialsEverySec: seconds(
      'Denials are grouped: at most one message per this many seconds, sent this long after the first denial ("12 denials in the last 60 s: ...")',
      86_400,
    ).default(60),
    errorsEverySec: seconds('Errors (strategy handler errors, error log lines) are grouped the same way', 86_400).default(60),
    disconnectedAfterSec: seconds('A stream connection down this long is reported (and its return after that)', 86_400).default(30),
    dailySummary: z
      .strictObject({
        at: z
          .string({ error: 'is not a time of day (HH:MM or HH:MM:SS)' })
          .regex(/^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9])?$/, { error: 'is not a time of day (HH:MM or HH:MM:SS, 24 h)' })
          .describe('Time of day of the summary, e.g. "21:00"'),
        timezone: timeZone().default('UTC'),
      })
      .optional()
      .describe('A summary once a day (equity, pnl and trades of the last 24 h)'),
    delivery: z
      .strictObject({
        timeoutMs: positiveInt('Timeout of one request (ms)', 120_000).default(10_000),
        retries: z
          .number({ error: 'is not a whole number' })
          .int({ error: 'is not a whole number' })
          .min(0, { error: 'must be from 0 to 20' })
          .max(20, { error: 'must be from 0 to 20' })
          .default(5)
          .describe('Retries of a failed request (network error, timeout, 429, 5xx)'),
        backoffMs: positiveInt('Delay before the first retry (ms); doubled on each further retry', 600_000).default(1_000),
        maxBackoffMs: positiveInt('Longest delay between two retries (ms); a 429 Retry-After is honoured up to this', 3_600_000).default(60_000),
        queueSize: positiveInt('Messages waiting per target; when full, the oldest is dropped (counted, logged)', 100_000).default(200),
      })
      .prefault({})
      .describe('Background delivery: never on the trading path'),
  })
  .describe('Notifications of a running bot (mizan run, paper and live); off in backtests');

export type NotificationsConfig = z.output<typeof notificationsSchema>;
export type NotifyTargetConfig = z.output<typeof notifyTargetSchema>;
