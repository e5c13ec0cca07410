// @ts-check
// Small DOM helpers: every value from a bot reaches the page as text (textContent), never as HTML.

/** @typedef {import('./bot.js').Bot} Bot */
/** @typedef {import('./bot.js').Topic} Topic */

/**
 * An element's attributes: `class`, `testid` (data-testid), `dataset`, `on<event>` listeners, and
 * any other attribute (true: present and empty; undefined, null, false: left out).
 * @typedef {{
 *   class?: string,
 *   testid?: string,
 *   dataset?: Record<string, string | undefined>,
 *   onclick?: (e: MouseEvent) => unknown,
 *   onsubmit?: (e: SubmitEvent) => unknown,
 *   [attribute: string]: unknown,
 * }} Attrs
 */
/**
 * What an element holds: nodes, and values shown as text (undefined, null, false: nothing), or a list of them.
 * @typedef {Node | string | number | boolean | null | undefined} Leaf
 * @typedef {Leaf | Leaf[]} Child
 */

/**
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Attrs | null} [attrs]
 * @param {Child[]} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = String(v);
    else if (k === 'testid') el.dataset.testid = String(v);
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), /** @type {EventListener} */ (v));
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  add(el, children);
  return el;
}

/**
 * @param {HTMLElement} el
 * @param {Child[]} children
 */
function add(el, children) {
  for (const c of children) {
    if (c === undefined || c === null || c === false) continue;
    if (Array.isArray(c)) add(el, c);
    else if (c instanceof Node) el.append(c);
    else el.append(document.createTextNode(String(c)));
  }
}

/**
 * An element of index.html (always there: the page is served whole), of its type.
 * @template {HTMLElement} E
 * @param {string} id
 * @param {{ new (): E, readonly name: string }} type
 * @returns {E}
 */
export function byId(id, type) {
  const el = document.getElementById(id);
  if (!(el instanceof type)) throw new Error(`dashboard: index.html has no ${type.name} #${id}`);
  return el;
}

/** @param {Element} el */
export function clear(el) {
  while (el.firstChild) el.firstChild.remove();
}

/** @param {number | null | undefined} ms */
export function time(ms) {
  if (ms === null || ms === undefined) return '—';
  return new Date(ms).toISOString().replace('T', ' ').slice(0, 19);
}

/** @param {number | null | undefined} ms */
export function ago(ms) {
  if (ms === null || ms === undefined) return 'never';
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  return `${Math.floor(s / 3600)} h ago`;
}

/** @param {number} ms */
export function duration(ms) {
  const s = Math.floor(ms / 1000);
  const d = Math.floor(s / 86400);
  const hh = Math.floor((s % 86400) / 3600);
  const mm = Math.floor((s % 3600) / 60);
  return d > 0 ? `${d} d ${hh} h` : hh > 0 ? `${hh} h ${mm} min` : `${mm} min ${s % 60} s`;
}

/**
 * A decimal string shown with thousands separators and at most `dp` decimals (the exact value stays in the title).
 * @param {string | number | null | undefined} v
 * @param {number} [dp]
 */
export function money(v, dp = 2) {
  if (v === null || v === undefined || v === '') return '—';
  const n = Number(v);
  if (!Number.isFinite(n)) return String(v);
  return n.toLocaleString('en-US', { minimumFractionDigits: 0, maximumFractionDigits: dp });
}

/** @param {string | number} v */
export function signClass(v) {
  const n = Number(v);
  return n > 0 ? 'pos' : n < 0 ? 'neg' : '';
}

/**
 * A table: columns of [heading, (row) => cell], rows, and what to say when there is none.
 * @template R
 * @param {[string, (row: R) => Child][]} columns
 * @param {readonly R[]} rows
 * @param {{ empty?: string, testid?: string, rowAttrs?: (row: R) => Attrs }} [options]
 */
export function table(columns, rows, { empty = 'none', testid, rowAttrs } = {}) {
  return h(
    'table',
    { class: 'data', testid },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        columns.map(([head]) => h('th', {}, head)),
      ),
    ),
    h(
      'tbody',
      {},
      rows.length === 0
        ? h('tr', { class: 'empty' }, h('td', { colspan: columns.length }, empty))
        : rows.map((r) =>
            h(
              'tr',
              rowAttrs ? rowAttrs(r) : {},
              columns.map(([, cell]) => h('td', {}, cell(r))),
            ),
          ),
    ),
  );
}

/**
 * @param {string} text
 * @param {'ok' | 'warn' | 'bad'} kind
 */
export function badge(text, kind) {
  return h('span', { class: `badge ${kind}` }, text);
}

/** @param {import('../port.js').TradingStateName} state */
export function stateBadge(state) {
  return badge(state, state === 'active' ? 'ok' : state === 'reducing' ? 'warn' : 'bad');
}

let confirmSeq = 0;

/**
 * A confirmation in a modal dialog: resolves to { reason } when confirmed, null when cancelled.
 * `reason`: 'required' | 'optional' | undefined (no field).
 * @param {{ title: string, message: string, confirmLabel: string, danger?: boolean, reason?: 'required' | 'optional' }} what
 * @returns {Promise<{ reason: string | undefined } | null>}
 */
export function confirmAction({ title, message, confirmLabel, danger = true, reason }) {
  const dlg = byId('confirm', HTMLDialogElement);
  clear(dlg);
  const id = `reason-${++confirmSeq}`;
  const input = reason
    ? h('input', {
        id,
        type: 'text',
        testid: 'confirm-reason',
        maxlength: 500,
        placeholder: reason === 'required' ? 'reason (required)' : 'reason (optional)',
        autocomplete: 'off',
      })
    : null;
  const err = h('p', { class: 'error', testid: 'confirm-error' });
  const ok = h('button', { type: 'button', class: danger ? 'danger' : 'primary', testid: 'confirm-ok' }, confirmLabel);
  const cancel = h('button', { type: 'button', testid: 'confirm-cancel' }, 'Cancel');
  // add(), not append(): append would write the nulls of a dialog without a reason field as text.
  add(dlg, [h('h2', {}, title), h('p', {}, message), input ? h('label', { for: id }, 'Reason') : null, input, err, h('div', { class: 'actions' }, cancel, ok)]);
  return new Promise((resolve) => {
    /** @param {{ reason: string | undefined } | null} v */
    const done = (v) => {
      dlg.close();
      resolve(v);
    };
    ok.addEventListener('click', () => {
      const r = input ? input.value.trim() : '';
      if (reason === 'required' && !r) {
        err.textContent = 'Give a reason: it is kept with the trading state.';
        input?.focus();
        return;
      }
      done({ reason: r || undefined });
    });
    cancel.addEventListener('click', () => done(null));
    dlg.addEventListener('cancel', () => resolve(null), { once: true });
    dlg.showModal();
    (input ?? cancel).focus();
  });
}

/**
 * A short message at the top of the page (errors of a control stay until closed).
 * @param {string} text
 * @param {'info' | 'error'} [kind]
 */
export function toast(text, kind = 'info') {
  const box = byId('toasts', HTMLDivElement);
  /** @type {HTMLDivElement} */
  const el = h(
    'div',
    { class: `toast ${kind}`, role: kind === 'error' ? 'alert' : 'status', testid: `toast-${kind}` },
    text,
    h('button', { type: 'button', class: 'link', onclick: () => el.remove(), 'aria-label': 'close' }, '×'),
  );
  box.append(el);
  if (kind !== 'error') setTimeout(() => el.remove(), 6000);
}

/**
 * Re-draw `draw` into `box` now and whenever the bot announces one of `topics`.
 * @param {Bot} bot
 * @param {HTMLElement} box
 * @param {Topic[]} topics
 * @param {(box: HTMLElement) => void} draw
 * @returns {() => void} stops the re-drawing
 */
export function live(bot, box, topics, draw) {
  // A redraw between a button's press and its release would put a new button under the release: the
  // browser then clicks neither (an order's Cancel lost while the orders table updates). While a
  // pointer is pressed in the box, redraws wait; the last one runs after the release's click.
  let pressed = false;
  let waiting = false;
  const run = () => {
    if (pressed) {
      waiting = true;
      return;
    }
    clear(box);
    if (bot.state !== 'live' && !bot.status) {
      box.append(h('p', { class: 'muted' }, bot.error ? `Not connected: ${bot.error}` : 'Connecting…'));
      return;
    }
    draw(box);
  };
  const down = () => {
    pressed = true;
  };
  const up = () => {
    if (!pressed) return;
    pressed = false;
    if (!waiting) return;
    waiting = false;
    setTimeout(run, 0);
  };
  box.addEventListener('pointerdown', down);
  window.addEventListener('pointerup', up);
  window.addEventListener('pointercancel', up);
  run();
  const off = bot.on((topic) => {
    if (topics.includes(topic) || topic === 'load' || topic === 'connection') run();
  });
  return () => {
    off();
    box.removeEventListener('pointerdown', down);
    window.removeEventListener('pointerup', up);
    window.removeEventListener('pointercancel', up);
  };
}
