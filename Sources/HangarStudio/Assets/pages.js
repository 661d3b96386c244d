// Hangar Studio's pages: one function per page, chosen by the URL, so every page can be linked and reloaded.
'use strict';

(() => {
  const S = Studio;
  const { el } = S;

  async function overview() {
    const data = await S.api('overview');
    const store = data.store;
    const storeFacts = [['Engine', store.engine]];
    if (store.path) storeFacts.push(['File', store.path]);
    else if (store.location) storeFacts.push(['Location', store.location]);
    if (store.size !== undefined && store.size !== false) storeFacts.push(['Store size', S.bytes(store.size)]);
    else storeFacts.push(['Store size', 'not measured on this engine (ask the database server)']);
    if (store.walSize !== undefined) storeFacts.push(['Write-ahead log', S.bytes(store.walSize)]);
    const changes = data.changes;
    const first = changes.first === false ? 'none yet' : changes.first === 'pruned' ? 'earliest pruned' : changes.first;
    storeFacts.push(['Change feed', first + ' … ' + changes.last + ' (last sequence)']);
    storeFacts.push(['Change retention', (changes.maximumCount === 'unlimited' ? 'any number' : S.number(changes.maximumCount) + ' changes') +
      ', ' + (changes.maximumAgeDays === 'unlimited' ? 'any age' : changes.maximumAgeDays + ' days')]);
    const user = data.collections.filter((c) => !c.reserved);
    const reserved = data.collections.filter((c) => c.reserved);
    const charts = el('div', { id: 'charts' });
    S.show('Overview', S.facts(storeFacts),
      el('h2', {}, 'Collections'),
      S.table(['Collection', { text: 'Documents', num: true }, { text: 'Bytes', num: true }, 'Declared format', 'History'],
        user.map((c) => collectionRow(c)), 'Collections'),
      reserved.length ? el('details', {}, el('summary', {}, 'Hangar Sync\'s records (' + reserved.length + ' collections)'),
        S.table(['Collection', { text: 'Documents', num: true }, { text: 'Bytes', num: true }, 'Declared format', 'History'],
          reserved.map((c) => collectionRow(c)), 'Reserved collections')) : '',
      el('h2', {}, 'Format versions'),
      el('p', { class: 'muted' }, 'Documents per stored majorVersion.minorVersion, against the collection\'s declared format: the older ones are what a bulk upgrade would touch.'),
      charts);
    for (const c of user) {
      const section = el('section', { class: 'chart', 'data-collection': c.name, 'aria-busy': 'true' },
        el('h3', {}, c.name), el('p', { class: 'muted' }, 'Counting…'));
      charts.append(section);
    }
    for (const c of user) await versionChart(c, charts);
    await formatHistories(charts);
  }

  // The Migration Kit's histories (`hangar studio --formats DIR`): frozen versions, and the census against them.
  async function formatHistories(charts) {
    let data;
    try { data = await S.api('formats'); } catch (error) { charts.after(S.notice(error.message, true)); return; }
    if (!data.histories.length) return;
    for (const h of data.histories) {
      for (const row of document.querySelectorAll('tr[data-collection]')) {
        if (row.dataset.collection !== h.collection) continue;
        const cell = row.children[3];
        cell.textContent = (h.declared ? h.declared + ', ' : '') + 'frozen ' + h.frozen.join(', ');
      }
    }
    const rows = data.histories.flatMap((h) => h.census.map((v) =>
      el('tr', { 'data-history': h.collection, 'data-version': v.version },
        el('td', {}, h.collection), el('td', {}, v.version), el('td', { class: 'num' }, S.number(v.count)),
        el('td', {}, v.status))));
    charts.after(el('section', { id: 'histories' }, el('h2', {}, 'Format histories'),
      el('p', { class: 'muted' }, 'Stored documents against the frozen versions of each history: frozen ones are migrated when read, too-old ones no longer read.'),
      S.table(['Collection', 'Version', { text: 'Documents', num: true }, 'Against the history'], rows, 'Format histories')));
  }

  function collectionRow(c) {
    return el('tr', { 'data-collection': c.name },
      el('td', {}, el('a', { href: S.links.collection(c.name), class: 'key' }, c.name)),
      el('td', { class: 'num' }, S.number(c.count)),
      el('td', { class: 'num bytes' }, '…'),
      el('td', {}, c.declared || 'not declared here'),
      el('td', {}, c.history));
  }

  async function versionChart(c, charts) {
    const section = [...charts.children].find((s) => s.dataset.collection === c.name);
    let data;
    try { data = await S.api('versions/' + S.segment(c.name)); } catch (error) {
      section.replaceChildren(el('h3', {}, c.name), S.notice(error.message, true)); return;
    }
    for (const row of document.querySelectorAll('tr[data-collection]')) {
      if (row.dataset.collection === c.name) row.querySelector('.bytes').textContent = S.bytes(data.bytes);
    }
    const max = Math.max(1, ...data.versions.map((v) => v.count));
    const rows = data.versions.map((v) => {
      const bar = el('div', { class: 'chart-bar ' + (v.relation || '') });
      bar.style.width = (100 * v.count / max) + '%';
      const label = v.version + (v.relation ? ' (' + v.relation + ')' : '');
      return el('div', { class: 'chart-row', 'data-version': v.version, 'data-count': v.count },
        el('span', { class: 'version-label' }, label),
        el('div', { class: 'chart-track', 'aria-hidden': 'true' }, bar),
        el('span', { class: 'num version-count' }, S.number(v.count)));
    });
    const summary = data.declared
      ? S.number(data.olderThanDeclared) + ' of ' + S.number(data.count) + ' documents are older than the declared ' + data.declared
      : S.number(data.count) + ' documents; no declared format known to this studio';
    section.replaceChildren(el('h3', {}, el('a', { href: S.links.collection(c.name) }, c.name)),
      el('div', { role: 'list', 'aria-label': 'Documents per version in ' + c.name },
        rows.map((r) => { r.setAttribute('role', 'listitem'); return r; })),
      el('p', { class: 'muted' }, summary));
    section.setAttribute('aria-busy', 'false');
  }

  async function collection(name) {
    const query = new URLSearchParams(location.search);
    const data = await S.api(S.prefix + '/api/collections/' + S.segment(name) + '?' + query.toString());
    const field = (label, param, attributes) => el('label', {}, label,
      el('input', Object.assign({ name: param, value: query.get(param) || '' }, attributes || {})));
    const sort = el('select', { name: 'sort' }, [['key', 'Key'], ['-key', 'Key, descending'], ['revision', 'Revision'],
      ['-revision', 'Revision, descending'], ['-updated', 'Last change, newest first'], ['updated', 'Last change, oldest first']]
      .map(([value, text]) => el('option', { value, selected: (query.get('sort') || 'key') === value }, text)));
    // Any index the store has built: a page of it, in index order, paged with the cursor the API gives.
    const index = el('select', { name: 'index', id: 'index' }, [['', '(key order)']].concat((data.indexes || []).map((i) => [i, i]))
      .map(([value, text]) => el('option', { value, selected: (query.get('index') || '') === value }, text)));
    const order = el('select', { name: 'order' }, [['asc', 'Ascending'], ['desc', 'Descending']]
      .map(([value, text]) => el('option', { value, selected: (query.get('order') || 'asc') === value }, text)));
    const indexed = Boolean(data.index);
    const form = el('form', { class: 'filters', method: 'get', action: S.links.collection(name) },
      indexed ? '' : field('Key prefix', 'prefix'), indexed ? '' : field('Class tag', 'class'),
      indexed ? '' : field('Version', 'version', { placeholder: '2.0', size: 6 }),
      el('label', {}, 'Index', index), field('Index value', 'value', { size: 10, placeholder: 'JSON or text' }),
      field('Value prefix', 'valuePrefix', { size: 10 }), field('From', 'from', { size: 6 }), field('To', 'to', { size: 6 }),
      el('label', {}, 'Order', order), indexed ? '' : el('label', {}, 'Sort', sort), el('button', { type: 'submit' }, 'Apply'));
    const rows = data.rows.map((r) => el('tr', { 'data-key': r.key },
      el('td', {}, el('a', { class: 'key', href: S.links.document(name, r.key) }, r.key)),
      el('td', { class: 'num' }, r.revision), el('td', {}, r.version), el('td', {}, r.class || ''),
      el('td', {}, r.updatedAt), el('td', { class: 'num' }, S.bytes(r.size))));
    const end = data.start + data.rows.length;
    const status = data.rows.length
      ? 'Documents ' + S.number(data.start + 1) + '–' + S.number(end) + ' of ' + S.number(data.matched) + ' matching (' + S.number(data.count) + ' in the collection)'
      : 'No document matches (' + S.number(data.count) + ' in the collection)';
    let next = '';
    if (data.next) {
      const nextQuery = new URLSearchParams(query);
      if (data.next.cursor) {
        nextQuery.set('cursor', data.next.cursor);
        nextQuery.set('start', data.next.start);
      } else {
        nextQuery.set('after', data.next.after);
        nextQuery.set('afterValue', data.next.afterValue);
      }
      next = el('a', { href: S.links.collection(name, nextQuery.toString()), rel: 'next', id: 'next' }, 'Next');
    }
    S.show('Collection ' + name, form, el('p', { role: 'status' }, status),
      S.table(['Key', { text: 'Revision', num: true }, 'Version', 'Class', 'Last change', { text: 'Bytes', num: true }], rows, 'Documents of ' + name),
      next, ' ', el('a', { href: S.links.changes(name) }, 'Changes of ' + name));
  }

  async function documentPage(collection, key) {
    const query = new URLSearchParams(location.search);
    const revision = query.get('revision');
    const data = await S.api(S.documentAPI(collection, key, '', revision ? { revision } : {}));
    const title = 'Document ' + key;
    const back = el('p', {}, 'In ', el('a', { href: S.links.collection(collection) }, collection));
    if (!data.tree) {
      S.show(title, back, S.notice('This document is deleted; its kept revisions are below.'), revisions(collection, key, data, query));
      return;
    }
    const downloads = el('p', {}, 'Download: ',
      el('a', { href: S.documentAPI(collection, key, 'download', revision ? { revision } : {}), download: '' }, '.plist (binary)'), ' · ',
      el('a', { href: S.documentAPI(collection, key, 'download', Object.assign({ format: 'xml' }, revision ? { revision } : {})), download: '' }, '.plist (XML)'));
    const factList = S.facts([['Collection', collection], ['Key', key],
      ['Revision', data.revision + (data.revision !== data.currentRevision ? ' (current: ' + data.currentRevision + ')' : '')],
      ['Version', data.version + (data.declared ? ' (declared ' + data.declared + ')' : '')], ['Class tag', data.class || 'none'],
      ['Created', data.createdAt], ['Saved', data.updatedAt], ['Stored bytes', S.number(data.size)]]);
    const parts = [back, factList, downloads, writeControls(collection, key, data),
      el('h2', {}, 'Value'), el('ul', { class: 'tree', id: 'tree' }, S.tree(data.tree)),
      el('h2', {}, 'XML'), el('pre', { id: 'xml' }, data.xml),
      el('h2', {}, 'JSON'), data.jsonError ? S.notice(data.jsonError) : '', el('pre', { id: 'json' }, data.json),
      revisions(collection, key, data, query)];
    S.show(title, ...parts);
    if (query.get('a') && query.get('b')) await showDiff(collection, key, query.get('a'), query.get('b'));
  }

  function writeControls(collection, key, data) {
    if (!S.writable || data.deleted || data.revision !== data.currentRevision) return '';
    const editor = el('textarea', { id: 'editor', 'aria-label': 'The document as an XML property list' }, data.xml);
    const message = el('div', { role: 'status' });
    const reload = (text) => { message.replaceChildren(S.notice(text)); setTimeout(() => location.reload(), 400); };
    return el('section', { 'aria-label': 'Changes' },
      el('h2', {}, 'Change this document'),
      el('p', {}, S.confirming('Delete', async () => {
        await S.post(S.documentAPI(collection, key, 'delete', { expected: data.revision }));
        reload('Deleted.');
      })),
      el('details', {}, el('summary', {}, 'Edit the value (XML)'), editor,
        S.confirming('Save', async () => {
          const answer = await S.post(S.documentAPI(collection, key, 'save', { expected: data.revision }), editor.value);
          reload('Saved as revision ' + answer.revision + '.');
        })),
      message);
  }

  function revisions(collection, key, data, query) {
    const a = query.get('a');
    const b = query.get('b');
    const rows = data.history.slice().reverse().map((r) => el('tr', { 'data-revision': r.revision },
      el('td', { class: 'num' }, el('a', { href: S.links.document(collection, key, 'revision=' + r.revision) }, 'Revision ' + r.revision)),
      el('td', {}, r.version), el('td', {}, r.savedAt), el('td', {}, r.current ? 'current' : ''),
      el('td', {}, el('input', { type: 'radio', name: 'a', value: r.revision, form: 'compare', 'aria-label': 'Compare from revision ' + r.revision, checked: String(r.revision) === a })),
      el('td', {}, el('input', { type: 'radio', name: 'b', value: r.revision, form: 'compare', 'aria-label': 'Compare to revision ' + r.revision, checked: String(r.revision) === b })),
      el('td', {}, S.writable && !r.current ? S.confirming('Restore', async () => {
        const answer = await S.post(S.documentAPI(collection, key, 'restore', { revision: r.revision }));
        location.assign(S.links.document(collection, key) + (S.links.document(collection, key).includes('?') ? '&' : '?') + 'restored=' + answer.revision);
      }) : '')));
    const compare = el('form', { id: 'compare', method: 'get', action: S.links.document(collection, key).split('?')[0] },
      [...new URLSearchParams(location.search)].filter(([k]) => k === 'key').map(([k, v]) => el('input', { type: 'hidden', name: k, value: v })),
      el('button', { type: 'submit' }, 'Compare the two chosen revisions'));
    return el('section', { 'aria-label': 'Revisions' }, el('h2', {}, 'Revisions (' + data.history.length + ' kept)'),
      S.table([{ text: 'Revision', num: true }, 'Version', 'Saved', '', 'From', 'To', ''], rows, 'Revisions'),
      compare, el('div', { id: 'diff' }));
  }

  async function showDiff(collection, key, a, b) {
    const holder = document.getElementById('diff');
    const data = await S.api(S.documentAPI(collection, key, 'diff', { a, b }));
    const rows = data.entries.map((e) => el('tr', { class: 'diff-' + e.change, 'data-path': JSON.stringify(e.path), 'data-change': e.change },
      el('td', { class: 'key' }, S.pathText(e.path)), el('td', {}, e.change),
      el('td', {}, e.before ? e.before.type + ' ' + S.leaf(e.before) : '—'),
      el('td', {}, e.after ? e.after.type + ' ' + S.leaf(e.after) : '—')));
    holder.replaceChildren(el('h2', { id: 'diff-title' }, 'Revision ' + a + ' → revision ' + b + ': ' + data.entries.length + (data.entries.length === 1 ? ' path' : ' paths') + ' differ'),
      S.table(['Path', 'Change', 'Revision ' + a, 'Revision ' + b], rows, 'Differences'),
      el('div', { class: 'columns' },
        el('div', {}, el('h3', {}, 'Revision ' + a), el('ul', { class: 'tree' }, S.tree(data.before))),
        el('div', {}, el('h3', {}, 'Revision ' + b), el('ul', { class: 'tree' }, S.tree(data.after)))));
  }

  async function changes() {
    const query = new URLSearchParams(location.search);
    const only = query.get('collection') || '';
    const data = await S.api('changes?' + new URLSearchParams(only ? { collection: only } : {}).toString());
    const body = el('tbody', { id: 'feed' });
    const row = (c) => el('tr', { 'data-sequence': c.sequence, 'data-key': c.key },
      el('td', { class: 'num' }, c.sequence), el('td', {}, el('a', { href: S.links.collection(c.collection), class: 'key' }, c.collection)),
      el('td', {}, c.kind === 'delete' ? el('span', { class: 'key' }, c.key) : el('a', { href: S.links.document(c.collection, c.key), class: 'key' }, c.key)),
      el('td', {}, c.kind), el('td', { class: 'num' }, c.revision), el('td', {}, c.version), el('td', {}, c.committedAt));
    for (const c of data.changes.slice().reverse()) body.append(row(c));
    const status = el('p', { role: 'status', id: 'live' }, 'Connecting…');
    const form = el('form', { class: 'filters', method: 'get', action: S.prefix + '/changes' },
      el('label', {}, 'Collection', el('input', { name: 'collection', value: only })), el('button', { type: 'submit' }, 'Filter'));
    S.show('Changes', form, status, el('div', { class: 'table-wrap' }, el('table', { 'aria-label': 'Changes, newest first' },
      el('thead', {}, el('tr', {}, ['Sequence', 'Collection', 'Key', 'Kind', 'Revision', 'Version', 'Committed'].map((h) => el('th', { scope: 'col' }, h)))), body)));
    const params = new URLSearchParams({ since: data.last });
    if (only) params.set('collection', only);
    const source = new EventSource(S.prefix + '/api/changes/events?' + params.toString());
    source.addEventListener('open', () => { status.textContent = 'Live: following changes after ' + data.last; });
    source.addEventListener('change', (event) => {
      const c = JSON.parse(event.data);
      const shown = row(c);
      shown.dataset.shownAt = String(Date.now());  // when it reached the page (the tests measure the delay)
      body.prepend(shown);
      status.textContent = 'Live: last change ' + c.sequence;
    });
    source.addEventListener('error', () => { status.textContent = 'Reconnecting…'; });
    window.addEventListener('pagehide', () => source.close());
  }

  async function sync() {
    const data = await S.api('sync');
    const parts = [];
    if (data.server) {
      const s = data.server;
      parts.push(el('h2', {}, 'Server store'), S.facts([['Store id', s.storeID], ['Epoch', s.epoch]]),
        el('h3', {}, 'Answers kept per client'),
        S.table(['Client', { text: 'Answers', num: true }], s.clients.map((c) => el('tr', {}, el('td', { class: 'key' }, c.client), el('td', { class: 'num' }, c.answers))), 'Answers per client'),
        el('h3', {}, 'Owners (' + s.ownerCount + ')'),
        S.table(['Document', 'User'], s.owners.map((o) => el('tr', {}, el('td', { class: 'key' }, o.document), el('td', { class: 'key' }, o.user))), 'Owners'));
    }
    if (data.device) {
      const d = data.device;
      parts.push(el('h2', {}, 'Device store'), S.facts([['Client id', d.clientID]]));
      for (const c of d.collections) {
        parts.push(el('h3', {}, el('a', { href: S.links.collection(c.collection) }, c.collection)),
          c.checkpoint ? el('ul', { class: 'tree', 'aria-label': 'Checkpoint' }, S.tree(c.checkpoint, 'checkpoint')) : el('p', {}, 'No checkpoint yet'),
          el('h4', {}, 'Pending changes (' + c.pending.length + ')'),
          S.table(['Key', { text: 'Local revision', num: true }, { text: 'In step at', num: true }, { text: 'Pending mutations', num: true }],
            c.pending.map((p) => el('tr', {}, el('td', {}, el('a', { class: 'key', href: S.links.document(c.collection, p.key) }, p.key)),
              el('td', { class: 'num' }, p.localRevision), el('td', { class: 'num' }, p.inStepRevision), el('td', { class: 'num' }, p.pendingMutations))), 'Pending'),
          el('h4', {}, 'Conflict copies (' + c.conflicts.length + ')'),
          c.conflicts.map((x) => conflict(c.collection, x)));
      }
    }
    if (!parts.length) parts.push(S.notice('This store has no Hangar Sync records: it is neither a sync server nor a device yet.'));
    S.show('Sync', ...parts);
  }

  function conflict(collection, x) {
    const diffTable = (label, entries) => el('div', {}, el('h5', {}, label + ': ' + entries.length + ' paths differ'),
      S.table(['Path', 'Change', 'Before', 'After'], entries.map((e) => el('tr', { class: 'diff-' + e.change },
        el('td', { class: 'key' }, S.pathText(e.path)), el('td', {}, e.change),
        el('td', {}, e.before ? S.leaf(e.before) : '—'), el('td', {}, e.after ? S.leaf(e.after) : '—'))), label));
    const column = (label, node) => el('div', {}, el('h5', {}, label), node ? el('ul', { class: 'tree' }, S.tree(node)) : el('p', { class: 'muted' }, label === 'Base' ? 'not kept' : 'deleted'));
    return el('article', { class: 'conflict', 'data-key': x.key },
      el('p', {}, el('a', { class: 'key', href: S.links.document(collection, x.key) }, x.key), ' (theirs: server revision ' + x.theirsRevision + ')'),
      el('div', { class: 'columns' }, column('Base', x.base), column('Mine', x.mine)),
      column('Theirs', x.theirs),
      diffTable('Mine → theirs', x.mineVersusTheirs),
      x.baseVersusMine ? diffTable('Base → mine', x.baseVersusMine) : '',
      x.baseVersusTheirs ? diffTable('Base → theirs', x.baseVersusTheirs) : '');
  }

  function health() {
    const result = el('div', { id: 'result', role: 'status' });
    const run = (label, path, render) => el('button', { type: 'button', id: label.toLowerCase().replace(/\W+/g, '-'), onclick: async (event) => {
      event.target.disabled = true;
      result.replaceChildren(S.notice(label + '…'));
      try { result.replaceChildren(render(await S.post(path))); } catch (error) { result.replaceChildren(S.notice(error.message, true)); }
      event.target.disabled = false;
    } }, label);
    S.show('Health',
      el('p', {}, 'Check reads every document back (and, on SQLite, runs the file\'s integrity check). Back up writes a consistent copy of a SQLite store beside it.'),
      el('p', {}, run('Check', 'health/check', (r) => el('div', {},
        S.notice(r.ok ? 'ok: no problem found (' + r.milliseconds + ' ms)' : r.problems.length + ' problems found', !r.ok),
        r.problems.length ? el('ul', {}, r.problems.map((p) => el('li', {}, p))) : '')),
        ' ', run('Back up', 'health/backup', (r) => S.notice('Backed up to ' + r.path + ' (' + S.bytes(r.size) + ')'))),
      result);
  }

  async function start() {
    document.getElementById('mode').textContent = S.writable ? 'Writes allowed' : 'Read-only';
    const route = S.route();
    const query = new URLSearchParams(location.search);
    try {
      if (route.length === 0) await overview();
      else if (route[0] === 'collections' && route.length === 2) await collection(route[1]);
      else if (route[0] === 'documents' && route.length === 3) await documentPage(route[1], route[2]);
      else if (route[0] === 'documents' && route.length === 2 && query.has('key')) await documentPage(route[1], query.get('key'));
      else if (route[0] === 'changes') await changes();
      else if (route[0] === 'sync') await sync();
      else if (route[0] === 'health') health();
      else S.show('Not found', S.notice('No such page', true));
    } catch (error) {
      S.fail(error);
    }
    document.body.dataset.ready = 'true';
  }

  start();
})();
