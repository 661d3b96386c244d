// Hangar Studio's shared helpers. Every piece of data reaches the page through textContent or an attribute set
// by setAttribute: never through innerHTML, so a document's `<script>` is text.
'use strict';

const Studio = (() => {
  const prefix = document.body.dataset.prefix || '';
  const writable = document.body.dataset.writable === 'true';

  /** An element with attributes (`on…` functions become listeners) and children (strings become text). */
  function el(tag, attributes, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (name.startsWith('on') && typeof value === 'function') node.addEventListener(name.slice(2), value);
      else node.setAttribute(name, value === true ? '' : String(value));
    }
    for (const child of children.flat(Infinity)) {
      if (child === undefined || child === null || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  /** A path segment: every byte but RFC 3986's unreserved ones percent-encoded. */
  function segment(text) {
    return encodeURIComponent(text).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
  }

  /** Whether a key cannot be a path segment of its own (URL parsers drop `.` and `..`; empty is no segment). */
  function needsQueryKey(key) {
    return key === '' || key === '.' || key === '..';
  }

  const links = {
    overview: () => prefix + '/',
    collection: (name, query) => prefix + '/collections/' + segment(name) + (query ? '?' + query : ''),
    document: (collection, key, query) => {
      const base = prefix + '/documents/' + segment(collection);
      if (needsQueryKey(key)) return base + '?key=' + segment(key) + (query ? '&' + query : '');
      return base + '/' + segment(key) + (query ? '?' + query : '');
    },
    changes: (collection) => prefix + '/changes' + (collection ? '?collection=' + segment(collection) : ''),
  };

  /** The API URL of a document (and an action under it). */
  function documentAPI(collection, key, action, query) {
    const base = prefix + '/api/documents/' + segment(collection);
    const params = new URLSearchParams(query || {});
    let path;
    if (needsQueryKey(key)) {
      params.set('key', key);
      path = base + (action ? '/' + action : '');
    } else {
      path = base + '/' + segment(key) + (action ? '/' + action : '');
    }
    const text = params.toString();
    return path + (text ? '?' + text : '');
  }

  /** The page's path segments after the prefix, percent-decoded. */
  function route() {
    let path = location.pathname;
    if (prefix && path.startsWith(prefix)) path = path.slice(prefix.length);
    return path.split('/').filter((s) => s !== '').map((s) => decodeURIComponent(s));
  }

  /** JSON from the API; an Error with the server's one-line reason otherwise. */
  async function api(path, options) {
    const response = await fetch(path.startsWith(prefix + '/api/') ? path : prefix + '/api/' + path, options);
    const text = await response.text();
    let body = {};
    try { body = text ? JSON.parse(text) : {}; } catch (error) { body = { error: text }; }
    if (!response.ok) throw new Error(body.error || ('HTTP ' + response.status));
    return body;
  }

  /** A POST to the API (same origin: the browser sends Origin and Sec-Fetch-Site). */
  function post(path, body) {
    return api(path, { method: 'POST', body: body, headers: body ? { 'Content-Type': 'application/x-plist+xml' } : {} });
  }

  const main = () => document.getElementById('main');

  /** Replaces the page's content and title; focus moves to the heading for screen readers. */
  function show(title, ...children) {
    document.title = title + ' · Hangar Studio';
    const heading = el('h1', { id: 'page-title' }, title);
    const nodes = children.flat(Infinity).filter((c) => c !== '' && c !== null && c !== undefined && c !== false)
      .map((c) => (c instanceof Node ? c : document.createTextNode(String(c))));
    main().replaceChildren(heading, ...nodes);
  }

  function notice(text, isError) {
    return el('p', { class: 'notice' + (isError ? ' error' : ''), role: isError ? 'alert' : 'status' }, text);
  }

  function fail(error) {
    main().append(notice(String(error.message || error), true));
  }

  function number(n) { return Number(n).toLocaleString('en-US'); }

  function bytes(n) {
    if (n < 1024) return number(n) + ' B';
    if (n < 1048576) return (n / 1024).toFixed(1) + ' KiB';
    return (n / 1048576).toFixed(1) + ' MiB';
  }

  function table(headers, rows, label) {
    return el('div', { class: 'table-wrap' },
      el('table', { 'aria-label': label },
        el('thead', {}, el('tr', {}, headers.map((h) => el('th', { scope: 'col', class: h.num ? 'num' : null }, h.text || h)))),
        el('tbody', {}, rows)));
  }

  function facts(pairs) {
    return el('dl', { class: 'facts' }, pairs.map(([name, value]) => [el('dt', {}, name), el('dd', {}, value)]));
  }

  /** A path into a value as text: `name.first`, `items[2]`, a key with odd characters quoted. */
  function pathText(path) {
    if (!path.length) return '(the whole value)';
    let text = '';
    for (const step of path) {
      if ('index' in step) text += '[' + step.index + ']';
      else if (/^[A-Za-z_$][\w$-]*$/.test(step.key)) text += (text ? '.' : '') + step.key;
      else text += '[' + JSON.stringify(step.key) + ']';
    }
    return text;
  }

  /** A typed tree node as nested lists: key, type, value (text), class tag at the top of a dictionary. */
  function tree(node, key) {
    const label = [];
    if (key !== undefined) label.push(el('span', { class: 'k' }, key), ': ');
    label.push(el('span', { class: 'type' }, node.type));
    if (node.type === 'dictionary') {
      const tag = node.entries.find(([k]) => k === 'class');
      if (tag && tag[1].type === 'string') label.push(el('span', { class: 'muted' }, 'class ' + tag[1].value));
      return el('li', {}, label, el('ul', {}, node.entries.map(([k, v]) => tree(v, k))));
    }
    if (node.type === 'array') {
      return el('li', {}, label, ' (' + node.items.length + ')',
        el('ul', {}, node.items.map((v, i) => tree(v, '[' + i + ']'))));
    }
    return el('li', {}, label, el('span', { class: 'v' }, leaf(node)));
  }

  /** A leaf's value as one line of text. */
  function leaf(node) {
    if (!node) return '—';
    switch (node.type) {
      case 'data': return node.size + ' bytes' + (node.size ? ' (base64 ' + node.value + (node.truncated ? '…' : '') + ')' : '');
      case 'boolean': return node.value ? 'true' : 'false';
      case 'uid': return 'UID ' + node.value;
      case 'dictionary': return '{' + node.entries.length + ' keys}';
      case 'array': return '[' + node.items.length + ' items]';
      case 'string': return node.value === '' ? '(empty string)' : node.value;
      default: return node.value;
    }
  }

  /** An in-page confirmation: the button becomes "Confirm LABEL" and "Cancel". */
  function confirming(label, action) {
    const holder = el('span', {});
    const ask = el('button', { type: 'button', class: 'danger', onclick: () => {
      const yes = el('button', { type: 'button', class: 'danger', onclick: async () => {
        yes.disabled = true;
        try { await action(); } catch (error) { holder.replaceChildren(notice(error.message, true)); }
      } }, 'Confirm ' + label.toLowerCase());
      const no = el('button', { type: 'button', onclick: () => holder.replaceChildren(ask) }, 'Cancel');
      holder.replaceChildren(el('span', { class: 'confirm', role: 'group', 'aria-label': label + '?' }, label + '?', yes, no));
      yes.focus();
    } }, label);
    holder.append(ask);
    return holder;
  }

  return { prefix, writable, el, segment, links, documentAPI, route, api, post, show, notice, fail, number, bytes,
    table, facts, pathText, tree, leaf, confirming };
})();
