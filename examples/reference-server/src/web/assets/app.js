// The page's script: signs in, fetches /ui/api/overview and draws it with DOM calls only (text goes in
// as text nodes, never as HTML; the Content-Security-Policy refuses HTML-from-string sinks anyway).
// The API key is read from the form, sent once in a POST body, and the field is cleared.

const UI_HEADER = { 'X-Finsync-UI': '1' };
const SVG = 'http://www.w3.org/2000/svg';
const $ = (id) => document.getElementById(id);

/** An element with a class and children (strings become text nodes). */
function el(tag, className, ...children) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

function titled(node, title) {
  node.title = title;
  return node;
}

function svg(tag, attributes) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  return node;
}

let selected;
let current;

/** A request to this server; `status` 0 when it could not be reached (no answer at all). */
async function call(method, path, body) {
  let response;
  try {
    response = await fetch(path, {
      method,
      credentials: 'same-origin',
      cache: 'no-store',
      headers: body === undefined ? UI_HEADER : { ...UI_HEADER, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    return { status: 0, ok: false, body: null };
  }
  let json = null;
  try {
    json = await response.json();
  } catch {
    // 204, or not JSON
  }
  return { status: response.status, ok: response.ok, body: json };
}

function ago(iso) {
  if (!iso) return null;
  const seconds = Math.max(0, (Date.now() - Date.parse(iso)) / 1000);
  if (seconds < 60) return 'just now';
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)} h ago`;
  const days = Math.floor(seconds / 86400);
  return days === 1 ? '1 day ago' : `${days} days ago`;
}

/** Shows "<prefix><how long ago>", kept current by the timer below without redrawing the page. */
function setAgo(node, prefix, iso) {
  node.dataset.ago = iso;
  node.dataset.prefix = prefix;
  node.textContent = `${prefix}${ago(iso)}`;
  return node;
}

const UNREACHABLE = 'Could not reach the server.';

/** A message for when nothing else can be shown (the first load failed): outside the dashboard. */
function showPageMessage(text) {
  $('page-message-text').textContent = text;
  $('page-message').hidden = false;
}

function freshness(iso) {
  if (!iso) return 'never';
  const hours = (Date.now() - Date.parse(iso)) / 3_600_000;
  return hours < 12 ? 'ok' : hours < 72 ? 'aging' : 'stale';
}

/** The next look while a sync is running, and whether the last answer said one was. */
let afterSync;
let syncing = false;
/** Counts sign-outs: an answer asked for before one is dropped, not drawn. */
let signOuts = 0;

/**
 * While a sync runs the chart waits (its rows land before its balance): the page looks again in 5 s,
 * and in 15 s after a look that failed, only while the tab is in view (as the five-minute look: each
 * is one request of the key's quota).
 */
function lookAgainWhileSyncing(afterFailure) {
  clearTimeout(afterSync);
  if (!syncing) return;
  afterSync = setTimeout(
    () => {
      if (current && document.visibilityState === 'visible') void load();
    },
    afterFailure ? 15_000 : 5_000,
  );
}

function showSignIn(message) {
  current = undefined;
  // Signed out by any way (the button, another tab, a session that ended): no account stays chosen.
  selected = undefined;
  signOuts += 1;
  syncing = false;
  clearTimeout(afterSync);
  $('page-message').hidden = true;
  // Signed out: the data leaves the page, not only the screen.
  for (const id of ['accounts', 'run-issues', 'chart', 'transactions']) $(id).replaceChildren();
  $('dashboard').hidden = true;
  $('who').hidden = true;
  $('signin').hidden = false;
  const error = $('signin-error');
  error.textContent = message ?? '';
  error.hidden = !message;
  $('api-key').focus();
}

function showMessage(text, kind) {
  loadFailureShown = false;
  const node = $('sync-message');
  node.textContent = text;
  node.className = `notice ${kind}`;
  node.hidden = !text;
}

function renderRun(data) {
  const run = data.last_sync;
  const badge = $('run-outcome');
  const connection = data.connection;
  if (run) {
    badge.textContent = run.outcome;
    badge.className = `badge ${run.outcome}`;
    setAgo($('run-when'), 'finished ', run.finished_at);
    $('run-when').title = run.finished_at;
    $('run-counts').textContent =
      `${run.fetched} fetched · ${run.added} added · ${run.modified} modified · ${run.removed} removed`;
  } else {
    badge.textContent = data.provider_configured ? 'no run yet' : 'no provider key';
    badge.className = 'badge skipped';
    const success = connection && connection.last_success_at;
    if (success) setAgo($('run-when'), 'last success ', success);
    else {
      delete $('run-when').dataset.ago;
      $('run-when').textContent = '';
    }
    $('run-counts').textContent = data.provider_configured
      ? 'No sync has run since the server started.'
      : 'Set a provider key with PUT /api/v1/provider to start syncing.';
  }
  if (connection && connection.status !== 'active') {
    $('run-counts').append(
      el('span', 'warn', ` · connection ${connection.status}`),
      connection.status_reason ? ` (${connection.status_reason})` : '',
    );
  }
  const issues = (run && run.issues) || [];
  $('run-issues').replaceChildren(
    ...issues.map((issue) =>
      el(
        'li',
        null,
        el('div', 'issue-title', issue.account ? `${issue.account} · ${issue.stage}` : issue.stage),
        el('div', 'issue-message', issue.message),
      ),
    ),
  );
}

function renderAccounts(data) {
  const chosen = data.selected_account_id;
  $('accounts').replaceChildren(
    ...data.accounts.map((account) => {
      const fresh = freshness(account.last_synced_at);
      const check = account.balance_check;
      const button = el(
        'button',
        'account',
        el(
          'span',
          'account-name',
          account.name,
          el('span', 'type', account.account_type.replaceAll('_', ' ')),
        ),
        el('span', 'balance', account.balance ?? '—'),
        el(
          'span',
          'meta',
          account.state === 'active' ? null : el('span', 'state', STATE_TEXT[account.state] ?? account.state),
          account.last_synced_at
            ? setAgo(el('span', `fresh fresh-${fresh}`), 'synced ', account.last_synced_at)
            : el('span', `fresh fresh-${fresh}`, 'never synced'),
          check ? el('span', `check ${check.status}`, checkText(check)) : null,
          // A sync could not read a newer balance, and none has since: say so.
          account.balance_stale
            ? el('span', 'balance-stale', 'balance not read since a sync failed to')
            : null,
        ),
        account.last_error
          ? titled(el('span', 'account-error', account.last_error), account.last_error)
          : null,
      );
      button.type = 'button';
      button.dataset.accountId = account.id;
      button.setAttribute('aria-pressed', String(account.id === chosen));
      if (account.last_synced_at) button.title = `Last synced ${account.last_synced_at}`;
      button.addEventListener('click', () => {
        const before = selected;
        const asked = signOuts;
        selected = account.id;
        // Redrawn, the list is new buttons: the keyboard's place goes back to this one. Not loaded,
        // the page still shows the account before, and so does `selected` (unless signed out since).
        void load({ focusAccount: account.id }).then((shown) => {
          if (!shown && asked === signOuts) selected = before;
        });
      });
      return el('li', null, button);
    }),
  );
  if (data.accounts.length === 0) $('accounts').append(el('li', 'muted', 'No accounts yet.'));
  for (const s of data.successors ?? [])
    $('accounts').append(
      el(
        'li',
        'successor',
        `${s.account} continues the old ${s.continues}, which the bank no longer lists: it was linked ` +
          `again, and ${s.shared_rows} of the old account's ${s.rows} transactions are listed under both, ` +
          'so they are counted twice.',
      ),
    );
}

/** Why an account is not kept current: the bank's word for it (inactive), or gone from its list. */
const STATE_TEXT = {
  inactive: 'not synced: the bank reports it inactive',
  gone: 'no longer listed by the bank',
};

function checkText(check) {
  if (check.status === 'balanced') return 'balance adds up';
  if (check.status === 'mismatch')
    return `off by ${check.difference ?? '?'}${check.since ? ` since ${check.since}` : ''}`;
  return 'balance unchecked';
}

function renderChart(data) {
  const chart = data.chart;
  const box = $('chart');
  $('chart-title').textContent = chart ? `Balance · ${chart.account_name}` : 'Balance';
  if (!chart) {
    box.replaceChildren(el('p', 'muted', data.chart_note ?? 'No balance to chart yet.'));
    return;
  }
  const drawing = svg('svg', {
    viewBox: `0 0 ${chart.width} ${chart.height}`,
    preserveAspectRatio: 'none',
    role: 'img',
    'aria-label': `Balance of ${chart.account_name} from ${chart.from} to ${chart.to}`,
  });
  drawing.append(
    svg('path', { d: chart.area, class: 'area' }),
    svg('path', { d: chart.line, class: 'line', 'vector-effect': 'non-scaling-stroke' }),
  );
  box.replaceChildren(
    el('div', 'chart-now', el('span', 'big', chart.last), el('span', 'muted', ` on ${chart.to}`)),
    el('div', 'plot', el('div', 'y-axis', el('span', null, chart.max), el('span', null, chart.min)), drawing),
    el(
      'div',
      'chart-axis muted',
      el('span', null, `${chart.from} · ${chart.first}`),
      el('span', null, `${chart.days} days`),
      el('span', null, chart.to),
    ),
  );
}

function renderTransactions(data) {
  const rows = data.transactions.map((t) =>
    el(
      'tr',
      null,
      el('td', 'date', t.date),
      el(
        'td',
        'name',
        t.name,
        t.pending
          ? titled(el('span', 'pending-tag', 'pending'), 'A hold: the bank may still change or drop it')
          : null,
      ),
      titled(el('td', 'muted account-column', t.account), t.account),
      el('td', 'muted category', t.category ?? '—'),
      el('td', `num ${t.income ? 'income' : 'expense'}`, t.amount),
    ),
  );
  if (rows.length === 0) {
    const cell = el('td', 'muted', 'No transactions yet.');
    cell.colSpan = 5;
    rows.push(el('tr', null, cell));
  }
  // A column of dashes says nothing: it shows once any transaction has a category.
  $('transactions-table').classList.toggle('no-category', !data.transactions.some((t) => t.category));
  $('transactions').replaceChildren(...rows);
}

function render(data) {
  current = data;
  $('signin').hidden = true;
  $('dashboard').hidden = false;
  $('who').hidden = false;
  $('user-name').textContent = data.user.name;
  const sync = $('sync-now');
  sync.disabled = !data.can_sync || !data.provider_configured;
  sync.title = !data.can_sync
    ? 'This key is read-only: it cannot sync'
    : data.provider_configured
      ? 'Fetch new data from the provider now'
      : 'Set a provider key first (PUT /api/v1/provider)';
  renderRun(data);
  renderAccounts(data);
  renderChart(data);
  renderTransactions(data);
}

/** Whether the message under "Last sync" is a failed load's, to be cleared once a load succeeds. */
let loadFailureShown = false;

/** Fetches and draws the overview; resolves with whether it was drawn. */

async function load(options = {}) {
  const query = selected ? `?account=${encodeURIComponent(selected)}` : '';
  const asked = signOuts;
  const response = await call('GET', `/ui/api/overview${query}`);
  // Signed out while it was on its way: the data stays off the page.
  if (asked !== signOuts) return false;
  // Signed out elsewhere, or the session ran out: the data leaves the screen.
  if (response.status === 401) {
    showSignIn(current ? 'Your session ended: sign in again.' : undefined);
    return false;
  }
  if (!response.ok) {
    const text =
      response.status === 0 ? UNREACHABLE : (response.body?.message ?? `Could not load (${response.status})`);
    if ($('dashboard').hidden) {
      // Nothing on screen yet: the dashboard's own message area is hidden with it. The session may
      // well hold (a rate limit, a server error), so signing out stays at hand and the form goes.
      $('signin').hidden = true;
      $('who').hidden = false;
      $('sync-now').disabled = true;
      showPageMessage(text);
    } else {
      showMessage(text, 'bad');
      loadFailureShown = true;
    }
    lookAgainWhileSyncing(true);
    return false;
  }
  $('page-message').hidden = true;
  if (loadFailureShown) showMessage('', 'ok');
  render(response.body);
  syncing = Boolean(response.body.connection?.syncing);
  lookAgainWhileSyncing(false);
  if (options.focusAccount)
    document.querySelector(`[data-account-id="${CSS.escape(options.focusAccount)}"]`)?.focus();
  if (options.focusDashboard) $('dashboard-title').focus();
  return true;
}

$('signin-form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const input = $('api-key');
  const key = input.value.trim();
  input.value = '';
  if (!key) return showSignIn('Paste your API key.');
  const response = await call('POST', '/ui/session', { api_key: key });
  if (response.status === 0) return showSignIn(`${UNREACHABLE} Try again.`);
  if (!response.ok) return showSignIn(response.body?.message ?? `Sign-in failed (${response.status})`);
  showMessage('', 'ok');
  // Signed in: the form goes now, whether or not the first load then succeeds.
  $('signin').hidden = true;
  $('signin-error').hidden = true;
  await load({ focusDashboard: true });
});

// A sign-out in one tab ends the session of every tab of this page: the others leave the data too.
const sessions = new BroadcastChannel('finsync-session');
sessions.addEventListener('message', (event) => {
  if (event.data === 'signed-out' && current) showSignIn('You signed out in another tab.');
});

$('sign-out').addEventListener('click', async () => {
  const response = await call('DELETE', '/ui/session');
  if (response.status === 0) return showMessage(`${UNREACHABLE} You are still signed in.`, 'bad');
  sessions.postMessage('signed-out');
  selected = undefined;
  showSignIn();
});

$('sync-now').addEventListener('click', async () => {
  const button = $('sync-now');
  button.disabled = true;
  button.textContent = 'Syncing…';
  showMessage('Syncing…', 'busy');
  const asked = signOuts;
  try {
    const response = await call('POST', '/ui/api/sync');
    // Signed out while it ran: its outcome is no longer this page's to say.
    if (asked !== signOuts) return;
    if (response.status === 401) return showSignIn('Your session ended: sign in again.');
    if (response.status === 0) return showMessage(UNREACHABLE, 'bad');
    if (response.ok) {
      const text = response.body.ok ? 'Sync finished' : `Sync finished: ${response.body.outcome}`;
      showMessage(`${text} at ${new Date().toLocaleTimeString()}.`, response.body.ok ? 'ok' : 'bad');
    } else {
      showMessage(response.body?.message ?? `Sync failed (${response.status})`, 'bad');
    }
    await load();
  } finally {
    button.textContent = 'Sync now';
    if (current) button.disabled = !current.can_sync || !current.provider_configured;
  }
});

// "… ago" is relative to now: those texts are kept current every half minute, in place (a redraw
// would take the keyboard's place away).
setInterval(() => {
  for (const node of document.querySelectorAll('[data-ago]'))
    node.textContent = `${node.dataset.prefix}${ago(node.dataset.ago)}`;
}, 30_000);

// The data itself, and whether the session still holds, are asked for again when the tab comes back
// into view and every five minutes while it is open (each is one request of the key's hourly quota).
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible' && current) void load();
});
setInterval(() => {
  if (current && document.visibilityState === 'visible') void load();
}, 300_000);

$('retry').addEventListener('click', () => void load());

void load();
