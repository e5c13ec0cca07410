/**
 * `mizan init` in a folder that already has a package.json (e.g. after `npm install <mizan>`): what
 * the scaffold's package.json has and the existing one lacks is added; nothing is overwritten.
 */

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Sections whose entries are merged one by one (the others are added whole when missing). */
const SECTIONS = ['scripts', 'dependencies', 'devDependencies', 'allowScripts'];

/**
 * `existing` with every field of `wanted` it lacks; returns the merged object, the fields added
 * (`scripts.test`, `type`, …) and those kept although the scaffold would have written another value.
 */
export function mergePackageJson(existing: Json, wanted: Json): { merged: Json; added: string[]; kept: string[] } {
  const merged: Json = { ...existing };
  const added: string[] = [];
  const kept: string[] = [];
  for (const [key, value] of Object.entries(wanted)) {
    if (!(key in merged)) {
      merged[key] = value;
      added.push(key);
      continue;
    }
    if (SECTIONS.includes(key) && isObject(value)) {
      const have = merged[key];
      if (!isObject(have)) {
        kept.push(key);
        continue;
      }
      const section: Json = { ...have };
      for (const [name, v] of Object.entries(value)) {
        if (!(name in section)) {
          section[name] = v;
          added.push(`${key}.${name}`);
        } else if (JSON.stringify(section[name]) !== JSON.stringify(v)) kept.push(`${key}.${name}`);
      }
      merged[key] = section;
    } else if (JSON.stringify(merged[key]) !== JSON.stringify(value) && key !== 'name' && key !== 'version') kept.push(key);
  }
  return { merged, added, kept };
}
