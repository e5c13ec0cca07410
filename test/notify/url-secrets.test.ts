/**
 * The secret parts of notification URLs (src/config/notify-secrets.ts) and a receiver's answer
 * quoted by a delivery (src/notify/delivery.ts): audit finding 4, a receiver echoing the request
 * path showed the secret path segment in the log, as only the whole URL was a secret.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { notificationSecrets, urlSecretParts } from '../../src/config/notify-secrets.js';
import { Delivery } from '../../src/notify/delivery.js';
import { createLogger, scrub } from '../../src/runtime/logger.js';

describe('notificationSecrets: the parts of a URL a receiver may echo', () => {
  it('takes the path segments, query values, user info and bearer credentials, not plain words or numbers', () => {
    const s = notificationSecrets({
      targets: [
        { url: 'http://127.0.0.1:8080/hook/PATHSEKRET' },
        { url: 'https://discord.com/api/webhooks/123456789012345678/DiscSekret_token-xyz' },
        { url: 'https://ntfy.example/alerts/100000?auth=c2VrcmV0LWF1dGg%3D&format=markdown' },
        { url: 'https://bot:pa%24%24word99@hooks.example/services/notify-me' },
        { url: 'http://h/j', headers: { Authorization: 'Bearer hdr-token-123' } },
      ],
    });
    for (const secret of [
      'PATHSEKRET',
      '/hook/PATHSEKRET',
      'DiscSekret_token-xyz',
      '123456789012345678',
      'c2VrcmV0LWF1dGg=',
      'c2VrcmV0LWF1dGg%3D',
      'pa$$word99',
      'Bearer hdr-token-123',
      'hdr-token-123',
    ])
      expect(s).toContain(secret);
    // Plain words and short numbers would take ordinary text (and prices) out of every log line.
    for (const word of ['webhooks', 'services', 'notify-me', 'markdown', '100000', 'alerts', '/services/notify-me']) expect(s).not.toContain(word);
    expect(scrub('HTTP 400 "no hook at url /hook/PATHSEKRET"', s)).toBe('HTTP 400 "no hook at url [REDACTED]"');
    expect(scrub('price 100000 TMN via webhooks', s)).toBe('price 100000 TMN via webhooks');
  });

  it('takes every part of one URL with words: true (a target quoting its own receiver), nothing from a URL that does not parse', () => {
    expect(urlSecretParts('https://ntfy.example/alerts/topicname', { words: true })).toEqual(['/alerts/topicname', 'topicname', 'alerts']);
    expect(urlSecretParts('https://ntfy.example/alerts/topicname')).toEqual([]);
    expect(urlSecretParts('not a url')).toEqual([]);
  });
});

describe('Delivery: a receiver answer quoting the URL', () => {
  it('logs the answer without any part of the target URL, not even one cut by the 200-character quote', async () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _e, cb) {
        lines.push(chunk.toString());
        cb();
      },
    });
    // Only the whole URL is given as the process's secret: the parts come from the delivery itself.
    const url = 'http://127.0.0.1:9/hooks/lowercasesecret/Tok3nPart-abcdef';
    const logger = createLogger({ level: 'debug', pretty: false, destination, secrets: [url] });
    // The path starts at character 190 of the answer: cut at 200 before the scrub, its first ten characters would stay.
    const answer = `${'x'.repeat(175)} unknown hook: /hooks/lowercasesecret/Tok3nPart-abcdef (segment lowercasesecret)`;
    const fetchFn = (() => Promise.resolve(new Response(answer, { status: 404 }))) as typeof fetch;
    const d = new Delivery(
      'hook',
      () => ({ url, headers: {}, body: '{}' }),
      { timeoutMs: 1000, retries: 0, backoffMs: 10, maxBackoffMs: 10, queueSize: 5 },
      logger,
      [url],
      fetchFn,
    );
    d.enqueue({ id: 'n1', event: 'fills', level: 'info', time: 0, title: 't', text: '', data: {} });
    await d.idle();
    await d.close(0);
    const log = lines.join('');
    expect(log).toContain('not delivered after 1 attempt(s): HTTP 404');
    expect(log).toContain('[REDACTED]');
    for (const piece of ['lowercasesecret', 'Tok3nPart', '/hooks/lower', 'lowerc']) expect(log).not.toContain(piece);
  });
});
