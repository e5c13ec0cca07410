/** The request of each format (src/notify/format.ts): URL, body, escaping, limits. */
import { describe, expect, it } from 'vitest';
import { discordBody, jsonBody, requestFor, telegramText, type Notice } from '../../src/notify/format.js';

const n: Notice = { id: 'x1', event: 'errors', level: 'error', time: Date.UTC(2026, 0, 2, 3, 4, 5), title: 'a <b> & c_d*', text: 'line (1).', data: { k: 1 } };

describe('notification formats', () => {
  it('telegram: sendMessage under the token, the text escaped for the parse mode', () => {
    const r = requestFor({ format: 'telegram', token: '1:abc', chatId: '-100', parseMode: 'HTML', baseUrl: 'http://127.0.0.1:9/' }, n, { mode: 'paper' });
    expect(r.url).toBe('http://127.0.0.1:9/bot1:abc/sendMessage');
    expect(JSON.parse(r.body)).toEqual({
      chat_id: '-100',
      text: '🛑 <b>a &lt;b&gt; &amp; c_d*</b>\nline (1).',
      parse_mode: 'HTML',
      disable_web_page_preview: true,
    });
    expect(telegramText(n, 'MarkdownV2')).toBe('🛑 *a <b\\> & c\\_d\\**\nline \\(1\\)\\.');
    expect(telegramText(n)).toBe('🛑 a <b> & c_d*\nline (1).');
    expect(requestFor({ format: 'telegram', token: '1:abc', chatId: 5 }, n, { mode: 'live' }).url).toBe('https://api.telegram.org/bot1:abc/sendMessage');
    expect(telegramText({ ...n, text: 'y'.repeat(10_000) }).length).toBeLessThanOrEqual(4096);
  });

  it('discord: content (bold title) or an embed, mentions never parsed, within its limits', () => {
    expect(discordBody(n, false)).toEqual({ allowed_mentions: { parse: [] }, content: '**a <b> & c_d***\nline (1).' });
    const e = discordBody({ ...n, title: 't'.repeat(300) }, true) as { embeds: { title: string; color: number; timestamp: string; description: string }[] };
    expect(e.embeds[0]!.title.length).toBe(256);
    expect(e.embeds[0]).toMatchObject({ color: 0xe74c3c, timestamp: '2026-01-02T03:04:05.000Z', description: 'line (1).' });
    expect((discordBody({ ...n, text: 'z'.repeat(5_000) }, false).content as string).length).toBe(2000);
  });

  it('json: the documented body, extra headers', () => {
    const r = requestFor({ format: 'json', url: 'http://127.0.0.1:9/h', headers: { Authorization: 'Bearer s' } }, n, { mode: 'live' });
    expect(r.headers).toEqual({ 'content-type': 'application/json', Authorization: 'Bearer s' });
    expect(JSON.parse(r.body)).toEqual(jsonBody(n, { mode: 'live' }));
    expect(jsonBody(n, { mode: 'live' })).toEqual({
      source: 'mizan',
      id: 'x1',
      event: 'errors',
      level: 'error',
      time: '2026-01-02T03:04:05.000Z',
      ts: n.time,
      mode: 'live',
      title: n.title,
      text: n.text,
      data: { k: 1 },
    });
  });
});
