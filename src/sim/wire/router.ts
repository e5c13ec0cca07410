/** Route matching for the wire server: `:name` segments, and the method check (405 vs 404). */
import type { HttpMethod, Route } from './route.js';

interface Compiled {
  route: Route;
  regex: RegExp;
  names: string[];
}

export type Match = { kind: 'route'; route: Route; params: Record<string, string> } | { kind: 'method' } | { kind: 'none' };

export function compilePattern(path: string): { regex: RegExp; names: string[] } {
  const names: string[] = [];
  const body = path
    .split('/')
    .map((seg) => {
      if (seg.startsWith(':')) {
        names.push(seg.slice(1));
        return '([^/]+)';
      }
      return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return { regex: new RegExp(`^${body}/?$`), names };
}

export class Router {
  private readonly compiled: Compiled[] = [];

  constructor(routes: Route[] = []) {
    this.add(routes);
  }

  add(routes: Route[]): void {
    for (const route of routes) this.compiled.push({ route, ...compilePattern(route.path) });
  }

  match(method: HttpMethod | string, path: string): Match {
    let pathMatched = false;
    for (const c of this.compiled) {
      const m = c.regex.exec(path);
      if (!m) continue;
      if (c.route.method !== method) {
        pathMatched = true;
        continue;
      }
      const params: Record<string, string> = {};
      c.names.forEach((n, i) => {
        params[n] = decodeURIComponent(m[i + 1] ?? '');
      });
      return { kind: 'route', route: c.route, params };
    }
    return pathMatched ? { kind: 'method' } : { kind: 'none' };
  }
}
