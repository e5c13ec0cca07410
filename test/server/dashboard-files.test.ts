/**
 * What the API server serves of src/server/dashboard/ (src/server/dashboard-files.ts): its HTML, CSS
 * and JavaScript, and lightweight-charts' standalone build; not the declarations its type check reads
 * (globals.d.ts, tsconfig.dashboard.json).
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CHARTS_FILE, loadDashboardFiles } from '../../src/server/dashboard-files.js';

const dir = fileURLToPath(new URL('../../src/server/dashboard/', import.meta.url));

describe('the dashboard files served', () => {
  it('are the page, its styles and scripts and the charts library, never a declaration file', () => {
    const served = [...loadDashboardFiles(dir).keys()].sort();
    const onDisk = readdirSync(dir);
    expect(onDisk).toContain('globals.d.ts');
    expect(served).not.toContain('globals.d.ts');
    expect(served.filter((n) => n !== CHARTS_FILE).every((n) => /\.(html|css|js)$/.test(n) && !n.endsWith('.d.ts'))).toBe(true);
    // Every script of the page is served.
    for (const js of onDisk.filter((n) => n.endsWith('.js'))) expect(served, js).toContain(js);
    expect(served).toEqual(expect.arrayContaining(['index.html', 'style.css', 'app.js', CHARTS_FILE]));
  });
});
