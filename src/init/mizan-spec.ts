/**
 * The dependency spec `mizan init` writes for mizan: the mizan it runs from, as it was installed.
 *
 * The rule (documented in the README's install section):
 * - mizan runs from `<project>/node_modules/mizan` (npm install, or npx's own project under
 *   `~/.npm/_npx/`): the `resolved` of `node_modules/mizan` in that project's lockfile
 *   (`node_modules/.package-lock.json`, then `package-lock.json`), else the `_resolved` npm once wrote
 *   into the installed package.json:
 *   - a registry tarball (`…/mizan/-/mizan-<version>.tgz`) or none: `^<version>`;
 *   - `file:<tarball or folder>`: `file:` and that path, relative to the new project;
 *   - anything else (a git URL with its commit, a tarball URL): as it is.
 * - mizan runs from anywhere else (a checkout, or a folder npm linked into node_modules, which
 *   Node resolves to the folder itself): `file:` and that folder, relative to the new project.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';

interface Lock {
  packages?: Record<string, { resolved?: string; link?: boolean } | undefined>;
}

function readJson<T>(file: string): T | undefined {
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/** `file:` and `target` (absolute) as seen from the project in `projectRoot`. */
function fileSpec(target: string, projectRoot: string): string {
  const rel = relative(projectRoot, target) || '.';
  return `file:${rel.startsWith('.') || isAbsolute(rel) ? rel : `./${rel}`}`;
}

/** How the mizan in `packageRoot` (version `version`) was installed, as a spec for `projectRoot`. */
export function installedMizanSpec(packageRoot: string, version: string, projectRoot: string): string {
  const root = realpathSync(packageRoot);
  const caret = `^${version}`;
  if (basename(dirname(root)) !== 'node_modules') return fileSpec(root, projectRoot);
  const installer = dirname(dirname(root));
  let resolved: string | undefined;
  for (const f of [join(installer, 'node_modules/.package-lock.json'), join(installer, 'package-lock.json')]) {
    const entry = readJson<Lock>(f)?.packages?.['node_modules/mizan'];
    if (entry?.resolved) {
      resolved = entry.resolved;
      break;
    }
  }
  resolved ??= readJson<{ _resolved?: string }>(join(root, 'package.json'))?._resolved;
  if (!resolved) return caret;
  if (/^https?:\/\/.*\/mizan\/-\/mizan-[^/]+\.tgz$/.test(resolved)) return caret;
  if (resolved.startsWith('file:')) {
    const path = resolved.slice('file:'.length);
    return fileSpec(isAbsolute(path) ? path : resolve(installer, path), projectRoot);
  }
  return resolved;
}
