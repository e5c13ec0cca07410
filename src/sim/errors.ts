/**
 * A refusal by the simulated exchange, carrying what the real exchange would answer: the HTTP
 * status, a message, and for 422 the per-field messages. The wire server turns it into the
 * exchange's error body `{success: false, code, message, result: {field: [msg]}}`; in-process
 * venues (paper, backtest) map it to the same typed errors the REST client produces.
 */
export type SimFieldErrors = Record<string, string[]>;

export class SimError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly fields: SimFieldErrors = {},
  ) {
    super(message);
    this.name = 'SimError';
  }
}

export const simErrors = {
  badRequest: (message: string) => new SimError(400, message),
  unauthorized: (message = 'Invalid API key') => new SimError(401, message),
  insufficientBalance: (message = 'Insufficient balance') => new SimError(402, message),
  forbidden: (message = 'Forbidden') => new SimError(403, message),
  notFound: (message = 'Not found') => new SimError(404, message),
  duplicate: (message = 'Duplicate client order id') => new SimError(409, message),
  invalid: (fields: SimFieldErrors, message = 'The given data was invalid.') => new SimError(422, message, fields),
  tooManyRequests: (message = 'Too many requests') => new SimError(429, message),
};
