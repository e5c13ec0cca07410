/**
 * The HTTP core of the REST client: one ky instance, per-attempt timeout, envelope unwrapping,
 * status/body -> typed error mapping, retries for idempotent calls only, the order-call limiter,
 * and a gate that holds requests while the exchange says the rate limit is spent.
 * Logs one debug line per attempt (method, path, status, duration) and never a header or the key.
 */
import ky from 'ky';
import { SystemClock, type Clock } from '../../core/clock.js';
import { MizanError, NetworkError, ParameterError, RateLimitError, RequestTimeoutError, ResponseParseError } from '../../core/errors.js';
import { silentLogger, type Logger } from '../../core/logger.js';
import { hasEnvelope, readEnvelope, type Envelope } from '../parse/envelope.js';
import { makeRedactor, mapHttpError, snippet, type Redact } from './errors.js';
import { DEFAULT_ORDER_RATE_LIMIT, OrderRateLimiter, type OrderRateLimit } from './limiter.js';
import { backoffDelay, DEFAULT_RETRY_POLICY, rateLimitWait, type RetryPolicy } from './retry.js';
import { kyTransport, nodeHttpTransport, type HeaderReader, type Transport } from './transport.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface HttpCoreOptions {
  baseUrl: string;
  apiKey?: string;
  /** Per attempt, headers and body included. Default 10 000 ms. */
  timeoutMs?: number;
  /** Retries of idempotent calls. Default 3. */
  retries?: number;
  /** Backoff tuning (tests make these small). */
  retryPolicy?: Partial<Omit<RetryPolicy, 'retries'>>;
  orderRateLimit?: OrderRateLimit;
  logger?: Logger;
  clock?: Clock;
  /** Waiting between retries; injectable for tests. */
  sleep?: (ms: number) => Promise<void>;
  /** Jitter source in [0, 1). */
  random?: () => number;
  /**
   * How order calls are sent: 'node-http' (default: a keep-alive `node:http` request, about 0.05 ms
   * to the socket) or 'ky' (like every other call). See transport.ts for the measurements.
   */
  orderTransport?: 'node-http' | 'ky';
}

export interface RequestSpec {
  method: HttpMethod;
  /** Path starting with `/`, path parameters already encoded. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: Record<string, unknown>;
  /** Send `x-api-key`: true fails before sending when no key is configured; 'optional' sends it when there is one. */
  auth: boolean | 'optional';
  /** Idempotent: may be retried on network errors, timeouts, 5xx and 429. */
  retry: boolean;
  /** 'required': `{success, result}` expected; 'optional': bare payloads accepted (candles, instant orders, margin). */
  envelope: 'required' | 'optional';
  /** Counts against the order-call limiter. */
  orderCall?: boolean;
  headers?: Record<string, string>;
}

export interface HttpResult {
  status: number;
  /** `result` of the envelope, or the bare body. */
  payload: unknown;
  envelope?: Envelope;
}

/**
 * State shared by a client and its sub-account views: the limiter, and per endpoint (method and
 * path) the time until which the exchange asked us to hold off. Per endpoint, so a spent market-data
 * limit never delays a cancel.
 */
interface SharedState {
  limiter: OrderRateLimiter;
  blockedUntil: Map<string, number>;
  /** Every call but order calls. */
  general: Transport;
  /** Order calls (spot create and cancel, instant orders, margin opens). */
  orders: Transport;
}

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class HttpCore {
  private readonly shared: SharedState;
  private readonly redact: Redact;
  private readonly policy: RetryPolicy;
  private readonly timeoutMs: number;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;

  constructor(
    private readonly options: HttpCoreOptions,
    private readonly extraHeaders: Record<string, string> = {},
    shared?: SharedState,
  ) {
    let base: URL;
    try {
      base = new URL(options.baseUrl);
    } catch {
      throw new RangeError(`baseUrl: not a URL: ${JSON.stringify(options.baseUrl)}`);
    }
    if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new RangeError(`baseUrl: must be http(s), got ${base.protocol}`);
    if (options.retries !== undefined && (!Number.isInteger(options.retries) || options.retries < 0)) {
      throw new RangeError(`retries must be a non-negative integer, got ${options.retries}`);
    }
    if (options.timeoutMs !== undefined && !(Number.isFinite(options.timeoutMs) && options.timeoutMs > 0)) {
      throw new RangeError(`timeoutMs must be positive (milliseconds), got ${options.timeoutMs}`);
    }
    if (options.orderTransport !== undefined && options.orderTransport !== 'node-http' && options.orderTransport !== 'ky') {
      throw new RangeError(`orderTransport must be 'node-http' or 'ky', got ${JSON.stringify(options.orderTransport)}`);
    }
    if (shared) {
      this.shared = shared;
    } else {
      const general = kyTransport(ky.create({ prefixUrl: options.baseUrl, retry: 0, timeout: false, throwHttpErrors: false }));
      this.shared = {
        limiter: new OrderRateLimiter(options.orderRateLimit ?? DEFAULT_ORDER_RATE_LIMIT, options.clock),
        blockedUntil: new Map(),
        general,
        orders: options.orderTransport === 'ky' ? general : nodeHttpTransport(options.baseUrl),
      };
    }
    this.redact = makeRedactor(options.apiKey);
    this.policy = { ...DEFAULT_RETRY_POLICY, ...options.retryPolicy, retries: options.retries ?? DEFAULT_RETRY_POLICY.retries };
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.logger = options.logger ?? silentLogger;
    this.clock = options.clock ?? new SystemClock();
    this.sleep = options.sleep ?? defaultSleep;
    this.random = options.random ?? Math.random;
  }

  /** Close idle kept-alive connections (shared with every view made by withHeaders). */
  close(): void {
    this.shared.general.close();
    this.shared.orders.close();
  }

  get hasApiKey(): boolean {
    return Boolean(this.options.apiKey);
  }

  /**
   * A view that sends `apiKey` instead of this core's key (a trading-credit account's own key) and
   * shares the connections, the limiter and the rate-limit gate.
   */
  withApiKey(apiKey: string, headers: Record<string, string> = {}): HttpCore {
    return new HttpCore({ ...this.options, apiKey }, { ...this.extraHeaders, ...headers }, this.shared);
  }

  /** A view that adds headers to every call and shares the limiter and the rate-limit gate. */
  withHeaders(headers: Record<string, string>): HttpCore {
    return new HttpCore(this.options, { ...this.extraHeaders, ...headers }, this.shared);
  }

  /** Redact the API key from any text. */
  clean(text: string): string {
    return this.redact(text);
  }

  async request(spec: RequestSpec): Promise<HttpResult> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.attempt(spec, attempt);
      } catch (err) {
        if (!(err instanceof MizanError) || !err.retryable || !spec.retry || attempt >= this.policy.retries) throw err;
        let delay = backoffDelay(attempt, this.policy, this.random);
        if (err instanceof RateLimitError && err.retryAfterMs !== undefined) {
          if (err.retryAfterMs > this.policy.maxRetryAfterMs) throw err;
          delay = err.retryAfterMs;
        }
        this.logger.warn({ method: spec.method, path: spec.path, attempt: attempt + 1, delayMs: delay, error: err.name }, 'exchange request failed, retrying');
        await this.sleep(delay);
      }
    }
  }

  private async attempt(spec: RequestSpec, attempt: number): Promise<HttpResult> {
    const { method, path } = spec;
    if (spec.auth === true && !this.options.apiKey) {
      throw new ParameterError('apiKey', undefined, `${method} ${path} is a private call: create the client with an apiKey`);
    }
    const gateKey = `${method} ${path}`;
    const gate = (this.shared.blockedUntil.get(gateKey) ?? 0) - this.clock.now();
    if (gate > 0) await this.sleep(gate);
    const releaseSlot = spec.orderCall ? await this.shared.limiter.acquire() : undefined;

    const headers: Record<string, string> = { accept: 'application/json', ...this.extraHeaders, ...spec.headers };
    if (spec.auth && this.options.apiKey) headers['x-api-key'] = this.options.apiKey;
    const query: Record<string, string> = {};
    if (spec.query) for (const k in spec.query) if (spec.query[k] !== undefined) query[k] = String(spec.query[k]);
    const transport = spec.orderCall ? this.shared.orders : this.shared.general;

    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.timeoutMs);
    const started = this.clock.now();
    let status = 0;
    let text: string;
    let resHeaders: HeaderReader;
    try {
      const res = await transport.send({ method, path, query, headers, signal: controller.signal, json: spec.body });
      status = res.status;
      resHeaders = res.headers;
      text = res.text;
    } catch (err) {
      const ms = this.clock.now() - started;
      this.logger.debug({ method, path, status: 0, durationMs: ms, attempt, transport: transport.name }, 'exchange request');
      const where = this.redact(displayBaseUrl(this.options.baseUrl));
      if (timedOut) throw new RequestTimeoutError(`${method} ${path}: no answer within ${this.timeoutMs} ms from ${where}`, { method, path });
      throw new NetworkError(`${method} ${path}: could not reach the exchange at ${where}: ${this.redact(describeNetworkError(err))}`, { method, path });
    } finally {
      clearTimeout(timer);
      releaseSlot?.();
    }
    this.logger.debug({ method, path, status, durationMs: this.clock.now() - started, attempt }, 'exchange request');

    const now = this.clock.now();
    const wait = rateLimitWait(resHeaders, now, this.policy, status);
    if (wait !== undefined && wait > 0 && wait <= this.policy.maxRetryAfterMs) {
      this.shared.blockedUntil.set(gateKey, Math.max(this.shared.blockedUntil.get(gateKey) ?? 0, now + wait));
    }

    let body: unknown;
    let isJson = false;
    if (text.trim() !== '') {
      try {
        body = JSON.parse(text);
        isJson = true;
      } catch {
        isJson = false;
      }
    }
    const ok = status >= 200 && status < 300;
    if (!ok || (isJson && hasEnvelope(body) && !readEnvelope(body).success) || (isJson && isBareErrorBody(body))) {
      throw mapHttpError(isJson ? { status, body, method, path, retryAfterMs: wait } : { status, text, method, path, retryAfterMs: wait }, this.redact);
    }
    if (!isJson) {
      const what =
        text.trim() === ''
          ? 'an empty body'
          : /^\s*</.test(text)
            ? `an HTML page ("${this.redact(snippet(text, 80))}")`
            : `malformed JSON ("${this.redact(snippet(text, 80))}")`;
      throw new ResponseParseError(`${method} ${path} -> HTTP ${status}: expected JSON, got ${what}`, { method, path, status });
    }
    if (hasEnvelope(body)) {
      const env = readEnvelope(body);
      return { status, payload: env.result, envelope: env };
    }
    if (spec.envelope === 'required') {
      throw new ResponseParseError(`${method} ${path} -> HTTP ${status}: expected the {success, result} envelope, got a body without "success"`, {
        method,
        path,
        status,
      });
    }
    return { status, payload: body };
  }
}

/**
 * A `{detail: …}` body (with at most `code` beside it: no `success`, no `result`, no payload) is a
 * refusal whatever the status: some of the exchange's services answer errors so, and a 2xx answer
 * of this shape must not be parsed as a payload. (A bare `{message}` is read as an error only with
 * an error status: a success payload may carry a message.)
 */
function isBareErrorBody(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body) || !('detail' in body)) return false;
  return Object.keys(body).every((k) => k === 'detail' || k === 'code');
}

/**
 * The base URL as a message may show it: scheme, host, port and path prefix, without user info, query
 * or fragment (any of which could hold a secret).
 */
function displayBaseUrl(baseUrl: string): string {
  const u = new URL(baseUrl);
  return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`;
}

/**
 * Why a request never got an answer, cause by cause: node's fetch throws `TypeError: fetch failed`
 * with the reason in `cause` (`connect ECONNREFUSED 127.0.0.1:8080`, `getaddrinfo ENOTFOUND host`,
 * `bad port`, undici's `Connect Timeout Error` with code UND_ERR_CONNECT_TIMEOUT); node:http throws
 * the system error itself, or an AggregateError of one per address tried. Each error's code is
 * added when its message does not already say it. A URL in the text loses its user info, query and
 * fragment (they could hold a secret).
 */
export function describeNetworkError(err: unknown): string {
  const parts: string[] = [];
  let e: unknown = err;
  for (let depth = 0; depth < 4 && e !== undefined && e !== null; depth++) {
    const text = describeOne(e);
    if (text !== '' && !parts.includes(text)) parts.push(text);
    e = e instanceof Error ? e.cause : undefined;
  }
  return (parts.join(': ') || 'unknown error').replace(/(https?:\/\/)(?:[^/\s]*@)?([^\s?#]*)[?#]?\S*/g, '$1$2');
}

function describeOne(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const code = (e as Error & { code?: unknown }).code;
  let text = e.message;
  if (text === '' && e instanceof AggregateError) text = [...new Set(e.errors.map(describeOne))].join('; ');
  if (typeof code === 'string' && code !== '' && !text.includes(code)) text = text === '' ? code : `${text} (${code})`;
  return text;
}
