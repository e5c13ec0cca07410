/**
 * A candle file that cannot be read. Final (reading it again gives the same answer). The message
 * names the file, the line (or JSON row) and the field, and quotes the bad value.
 */
import { FinalError } from '../../core/errors.js';

export interface CandleFileLocation {
  file: string;
  /** 1-based line of a text file, or undefined for JSON rows. */
  line?: number;
  /** 0-based row index of a JSON file (or of fetched candles); messages say `row <index + 1> (index <index>)`. */
  row?: number;
  field?: string;
}

export class CandleFileError extends FinalError {
  readonly file: string;
  readonly line: number | undefined;
  readonly row: number | undefined;
  readonly field: string | undefined;
  constructor(where: CandleFileLocation, problem: string, options?: { cause?: unknown }) {
    const at = [
      where.file,
      where.line !== undefined ? `line ${where.line}` : undefined,
      // A JSON row is counted from 1 like a text file's line, with its 0-based index beside it.
      where.row !== undefined ? `row ${where.row + 1} (index ${where.row})` : undefined,
      where.field !== undefined ? `field ${where.field}` : undefined,
    ]
      .filter((p) => p !== undefined)
      .join(', ');
    super(`${at}: ${problem}`, {}, options);
    this.file = where.file;
    this.line = where.line;
    this.row = where.row;
    this.field = where.field;
  }
}

/** Quote a bad value briefly for an error message. */
export function quote(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
