/**
 * What a notification says (a Notice) and the request each format makes of it: generic JSON,
 * the Telegram Bot API's sendMessage, a Discord webhook (content or an embed).
 */
import type { NotifyEvent, NotifyTargetConfig } from '../config/schema-notify.js';
import { TELEGRAM_API } from '../config/schema-notify.js';

export type NoticeLevel = 'info' | 'warning' | 'error';

export interface Notice {
  /** Unique per notice, the same on every retry (receivers can drop repeats with it). */
  id: string;
  event: NotifyEvent;
  level: NoticeLevel;
  /** Epoch ms. */
  time: number;
  /** One line, e.g. "Fill: btc-sma BUY 0.001 BTCUSDT @ 65000". */
  title: string;
  /** More lines (may be empty). */
  text: string;
  /** The same facts as plain JSON values (the generic JSON body's `data`). */
  data: Record<string, unknown>;
}

export interface HttpRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** The generic JSON body (documented in docs/notifications.md). */
export function jsonBody(n: Notice, bot: { mode: string }): Record<string, unknown> {
  return {
    source: 'mizan',
    id: n.id,
    event: n.event,
    level: n.level,
    time: new Date(n.time).toISOString(),
    ts: n.time,
    mode: bot.mode,
    title: n.title,
    text: n.text,
    data: n.data,
  };
}

const TELEGRAM_MAX = 4096;
const DISCORD_CONTENT_MAX = 2000;
const DISCORD_DESCRIPTION_MAX = 4096;
const DISCORD_TITLE_MAX = 256;

function cut(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeMarkdownV2 = (s: string) => s.replace(/[_*[\]()~`>#+\-=|{}.!\\]/g, (c) => `\\${c}`);

const ICON: Record<NoticeLevel, string> = { info: 'ℹ️', warning: '⚠️', error: '🛑' };

/** The text of a Telegram message, escaped for its parse mode (the title in bold). */
export function telegramText(n: Notice, parseMode?: 'HTML' | 'MarkdownV2'): string {
  const title = cut(n.title, 512);
  const body = cut(n.text, TELEGRAM_MAX - 600);
  if (parseMode === 'HTML') return `${ICON[n.level]} <b>${escapeHtml(title)}</b>${body ? `\n${escapeHtml(body)}` : ''}`;
  if (parseMode === 'MarkdownV2') return `${ICON[n.level]} *${escapeMarkdownV2(title)}*${body ? `\n${escapeMarkdownV2(body)}` : ''}`;
  return `${ICON[n.level]} ${title}${body ? `\n${body}` : ''}`;
}

const COLOR: Record<NoticeLevel, number> = { info: 0x2e86de, warning: 0xf39c12, error: 0xe74c3c };

/** A Discord webhook body: plain content, or one embed. Mentions are never parsed. */
export function discordBody(n: Notice, embeds: boolean): Record<string, unknown> {
  if (embeds) {
    return {
      allowed_mentions: { parse: [] },
      embeds: [
        {
          title: cut(n.title, DISCORD_TITLE_MAX),
          ...(n.text ? { description: cut(n.text, DISCORD_DESCRIPTION_MAX) } : {}),
          color: COLOR[n.level],
          timestamp: new Date(n.time).toISOString(),
          footer: { text: `mizan · ${n.event}` },
        },
      ],
    };
  }
  return { allowed_mentions: { parse: [] }, content: cut(`**${n.title}**${n.text ? `\n${n.text}` : ''}`, DISCORD_CONTENT_MAX) };
}

/** The HTTP request a target makes for a notice. */
export function requestFor(t: NotifyTargetConfig, n: Notice, bot: { mode: string }): HttpRequest {
  const json = { 'content-type': 'application/json' };
  switch (t.format) {
    case 'telegram': {
      const base = (t.baseUrl ?? TELEGRAM_API).replace(/\/+$/, '');
      const body = {
        chat_id: t.chatId,
        text: telegramText(n, t.parseMode),
        ...(t.parseMode ? { parse_mode: t.parseMode } : {}),
        disable_web_page_preview: true,
      };
      return { url: `${base}/bot${t.token}/sendMessage`, headers: json, body: JSON.stringify(body) };
    }
    case 'discord':
      return { url: t.url!, headers: json, body: JSON.stringify(discordBody(n, t.embeds === true)) };
    case 'json':
      return { url: t.url!, headers: { ...json, ...(t.headers ?? {}) }, body: JSON.stringify(jsonBody(n, bot)) };
  }
}
