/**
 * The dashboard's files, served by the API server at `/` and `/dashboard/<file>` without a token (the
 * page asks for one): the plain HTML, CSS and JavaScript of `src/server/dashboard/` (copied next to
 * this module by the build) and lightweight-charts' standalone build from its package, so the page
 * works from the bot alone, offline, no CDN. Read once at start into memory; only these names are
 * ever served (no path from a request reaches the file system).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface StaticFile {
  body: Buffer;
  type: string;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** The name the page loads lightweight-charts by (`/dashboard/vendor/lightweight-charts.js`). */
export const CHARTS_FILE = 'vendor/lightweight-charts.js';

/**
 * The page may run only its own scripts and styles; it may connect to other bots (the multi-bot view:
 * each of those bots decides with its own `server.origins` whether to answer).
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self' http: https: ws: wss:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function loadDashboardFiles(dir = fileURLToPath(new URL('./dashboard/', import.meta.url))): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    throw new Error(`the dashboard's files are missing (${dir}: ${(err as Error).message}); rebuild with npm run build`);
  }
  for (const name of names) {
    const type = TYPES[extname(name)];
    if (type) files.set(name, { body: readFileSync(join(dir, name)), type });
  }
  if (!files.has('index.html')) throw new Error(`the dashboard's index.html is missing in ${dir}; rebuild with npm run build`);
  // Its exports map hides the standalone file: found from its package.json.
  const lc = join(dirname(createRequire(import.meta.url).resolve('lightweight-charts/package.json')), 'dist', 'lightweight-charts.standalone.production.js');
  files.set(CHARTS_FILE, { body: readFileSync(lc), type: TYPES['.js']! });
  return files;
}
