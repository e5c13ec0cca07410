/**
 * Whether a journal file can be created where a config puts it (`journal.file`), found out without
 * `mkdirSync(…, { recursive: true })`: Node 20's recursive mkdir retries forever when the kernel
 * answers ENOENT for a directory whose parent exists (`/proc/forbidden`), so a bot hung there.
 * The path is walked up to its first existing ancestor, which must be a writable directory; the
 * directories missing below it are made one at a time (each failure named). `probe` (mizan check)
 * leaves nothing behind: what it made, and a probe of the journal file itself, are removed again.
 */
import { accessSync, closeSync, constants, lstatSync, mkdirSync, openSync, rmdirSync, statSync, unlinkSync, type Stats } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Why the journal cannot be created at `file`, or undefined when it can. */
export function journalLocationProblem(file: string, o: { probe: boolean }): string | undefined {
  if (file === ':memory:') return undefined;
  const path = resolve(file);
  const existing = statOf(path);
  if (typeof existing === 'string') return existing;
  if (existing) {
    if (existing.isDirectory()) return `${path} is a directory, not a journal file`;
    try {
      accessSync(path, constants.R_OK | constants.W_OK);
    } catch (err) {
      return `the journal file ${path} cannot be written (${codeOf(err)})`;
    }
    return undefined;
  }
  // Up to the first ancestor that exists.
  const missing: string[] = [];
  let dir = dirname(path);
  for (;;) {
    const st = statOf(dir);
    if (typeof st === 'string') return st;
    if (st) {
      if (!st.isDirectory()) return `${dir} is not a directory`;
      break;
    }
    missing.unshift(dir);
    const up = dirname(dir);
    if (up === dir) return `no part of ${path} exists`;
    dir = up;
  }
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch (err) {
    return `the directory ${dir} is not writable (${codeOf(err)})`;
  }
  const made: string[] = [];
  try {
    for (const d of missing) {
      try {
        mkdirSync(d);
      } catch (err) {
        return `cannot create the directory ${d} (${codeOf(err)})`;
      }
      made.push(d);
    }
    if (o.probe) {
      // The file itself: a directory can be writable for access() (root) and still refuse files (/proc).
      let fd: number;
      try {
        fd = openSync(path, 'wx');
      } catch (err) {
        return `cannot create the journal file ${path} (${codeOf(err)})`;
      }
      closeSync(fd);
      unlinkSync(path);
    }
    return undefined;
  } finally {
    if (o.probe) for (const d of made.reverse()) rmdirSync(d);
  }
}

/** A stat of `p`; undefined when nothing is there; a problem when it cannot be looked at. */
function statOf(p: string): Stats | undefined | string {
  try {
    return statSync(p);
  } catch (err) {
    const code = codeOf(err);
    if (code === 'ENOENT') {
      // A dangling symbolic link is not nothing: creating through it would go elsewhere.
      try {
        lstatSync(p);
        return `${p} is a symbolic link to nothing`;
      } catch {
        return undefined;
      }
    }
    // A file on the way (`/etc/passwd/j.sqlite`): the walk up meets it and names it.
    if (code === 'ENOTDIR') return undefined;
    return `${p} cannot be looked at (${code})`;
  }
}

function codeOf(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? (err as Error).message;
}

/** journalLocationProblem as the sentence of a config issue (`journal.file: <value> …`). */
export function journalLocationMessage(written: string, problem: string): string {
  return `${JSON.stringify(written)} cannot hold the journal: ${problem}`;
}
