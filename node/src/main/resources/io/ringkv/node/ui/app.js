// The ringkv dashboard: polls the node that served this page (the only origin it may talk to; that
// node gathers its peers' data) and draws what it answers.
//
// No library and no build step: the three charts are a few SVG paths each, which a charting
// library would not make simpler, and nothing has to be vendored or kept up to date for them.
// Everything from the node goes into the page as text (textContent, setAttribute), never as HTML.
'use strict';

const POLL_MILLIS = 1000;
const HISTORY_MILLIS = 5 * 60 * 1000;
// Distinguishable on white and for the common colour-vision deficiencies (Okabe & Ito), by node index.
const COLORS = ['#0072b2', '#e69f00', '#009e73', '#cc79a7', '#56b4e9', '#d55e00', '#f0e442', '#000000'];
const SVG = 'http://www.w3.org/2000/svg';
const EVENT_NAMES = {
  'server-error': '5xx answer',
  'replica-call-failed': 'replica call failed',
  'peer-down': 'peer down',
  'peer-up': 'peer back up',
};

const recorded = { nodes: [], points: [] };

function el(tag, attributes, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value !== null && value !== undefined) {
      element.setAttribute(name, String(value));
    }
  }
  for (const child of children) {
    element.append(child instanceof Node ? child : String(child ?? ''));
  }
  return element;
}

function svg(tag, attributes) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    element.setAttribute(name, String(value));
  }
  return element;
}

function color(index) {
  return COLORS[index % COLORS.length];
}

function millis(value) {
  if (value === null || value === undefined) return '–';
  if (value < 1) return value.toFixed(2) + ' ms';
  if (value < 10) return value.toFixed(1) + ' ms';
  return Math.round(value) + ' ms';
}

function rate(value) {
  if (value === null || value === undefined) return '–';
  return value < 10 ? value.toFixed(1) : String(Math.round(value));
}

function duration(seconds) {
  if (seconds === null || seconds === undefined) return '–';
  const pad = (n) => String(n).padStart(2, '0');
  if (seconds < 60) return seconds + 's';
  if (seconds < 3600) return Math.floor(seconds / 60) + 'm' + pad(seconds % 60) + 's';
  if (seconds < 86400) return Math.floor(seconds / 3600) + 'h' + pad(Math.floor(seconds / 60) % 60) + 'm';
  return Math.floor(seconds / 86400) + 'd' + pad(Math.floor(seconds / 3600) % 24) + 'h';
}

function bytes(value) {
  if (value === null || value === undefined) return '–';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let scaled = value;
  let unit = 0;
  while (scaled >= 1024 && unit < units.length - 1) {
    scaled /= 1024;
    unit++;
  }
  return unit === 0 ? value + ' B' : scaled.toFixed(1) + ' ' + units[unit];
}

function clock(epochMillis) {
  return new Date(epochMillis).toLocaleTimeString([], { hour12: false });
}

// ---- nodes ----------------------------------------------------------------------------------

function renderNodes(view) {
  const rows = view.nodes.map((node, index) => {
    const seen = node.self ? 'self' : node.seenBySelf === null ? '?' : node.seenBySelf + ' ' + duration(node.seenForSeconds);
    const name = el('td', { class: 'node' }, el('span', { class: 'swatch', 'data-color': index % COLORS.length }), node.node);
    const health = el('td', { class: 'health' }, el('span', { class: 'dot' }), node.health);
    if (node.detail) health.setAttribute('title', node.detail);
    const warnings = el('td', { class: 'warnings' });
    for (const warning of node.warnings) warnings.append(el('div', {}, warning));
    return el('tr', { 'data-node': node.node, 'data-health': node.health, 'data-warnings': node.warnings.length },
      name, health, el('td', { 'data-seen': node.seenBySelf ?? '' }, seen), el('td', {}, duration(node.uptimeSeconds)),
      el('td', { class: 'number rate' }, rate(node.perSecond)), el('td', { class: 'number p50' }, millis(node.p50Millis)),
      el('td', { class: 'number p99' }, millis(node.p99Millis)), el('td', { class: 'number' }, bytes(node.diskBytes)),
      el('td', { class: 'number epoch' }, node.metadataEpoch ?? '-'), el('td', { class: 'member' }, node.member ?? '-'),
      warnings);
  });
  document.querySelector('#nodes tbody').replaceChildren(...rows);
}

// ---- charts ---------------------------------------------------------------------------------

function remember(view) {
  const ids = view.nodes.map((node) => node.node);
  if (ids.join(' ') !== recorded.nodes.join(' ')) { // another node list: the old points do not line up
    recorded.nodes = ids;
    recorded.points = [];
  }
  const last = recorded.points.length ? recorded.points[recorded.points.length - 1].at : -1;
  for (const point of view.history) {
    if (point.at > last) recorded.points.push(point);
  }
  const oldest = view.at - HISTORY_MILLIS;
  while (recorded.points.length && recorded.points[0].at < oldest) recorded.points.shift();
}

/** A round number at or above `value`, for the y axis: 1, 2, 2.5 or 5 times a power of ten. */
function niceCeiling(value) {
  if (!(value > 0)) return 1;
  const power = Math.pow(10, Math.floor(Math.log10(value)));
  for (const step of [1, 2, 2.5, 5, 10]) {
    if (value <= step * power) return step * power;
  }
  return 10 * power;
}

function tickLabel(value) {
  if (value === 0) return '0';
  if (value < 1) return value.toFixed(2);
  if (value < 10) return String(Math.round(value * 10) / 10);
  return value >= 10000 ? Math.round(value / 1000) + 'k' : String(Math.round(value));
}

function renderChart(figure, now) {
  const metric = figure.dataset.metric;
  const width = 480;
  const height = 180;
  const left = 44;
  const right = 8;
  const top = 10;
  const bottom = 22;
  const start = now - HISTORY_MILLIS;
  let max = 0;
  for (const point of recorded.points) {
    for (const value of point[metric]) if (value !== null && value > max) max = value;
  }
  const ceiling = niceCeiling(max * 1.05);
  const x = (at) => left + ((at - start) / HISTORY_MILLIS) * (width - left - right);
  const y = (value) => top + (1 - value / ceiling) * (height - top - bottom);

  const chart = svg('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': figure.textContent });
  for (const fraction of [0, 0.5, 1]) {
    const value = ceiling * fraction;
    chart.append(svg('line', { class: 'grid', x1: left, x2: width - right, y1: y(value), y2: y(value) }));
    const label = svg('text', { class: 'tick', x: left - 4, y: y(value) + 4, 'text-anchor': 'end' });
    label.textContent = tickLabel(value);
    chart.append(label);
  }
  for (const [minutesAgo, anchor] of [[5, 'start'], [4, 'middle'], [3, 'middle'], [2, 'middle'], [1, 'middle'], [0, 'end']]) {
    const label = svg('text', { class: 'tick', x: x(now - minutesAgo * 60000), y: height - 6, 'text-anchor': anchor });
    label.textContent = minutesAgo === 0 ? 'now' : '−' + minutesAgo + ' min';
    chart.append(label);
  }
  recorded.nodes.forEach((node, index) => {
    // A gap where a value is unknown (a node down, or a reading too old to give a rate).
    let d = '';
    let drawing = false;
    let points = 0;
    for (const point of recorded.points) {
      const value = point[metric][index];
      if (value === null || value === undefined) {
        drawing = false;
        continue;
      }
      d += (drawing ? ' L' : ' M') + x(point.at).toFixed(1) + ' ' + y(value).toFixed(1);
      drawing = true;
      points++;
    }
    if (points > 0) {
      chart.append(svg('path', { class: 'series', d: d.trim(), stroke: color(index), 'data-node': node, 'data-points': points }));
    }
  });
  figure.querySelector('svg')?.remove();
  figure.append(chart);
}

function renderCharts(view) {
  for (const figure of document.querySelectorAll('figure.chart')) renderChart(figure, view.at);
  const items = recorded.nodes.map((node, index) =>
    el('li', {}, el('span', { class: 'swatch', 'data-color': index % COLORS.length }), node));
  document.getElementById('legend').replaceChildren(...items);
}

// ---- events ---------------------------------------------------------------------------------

function renderEvents(view) {
  const rows = view.events.map((event) => el('tr', { 'data-kind': event.kind, 'data-subject': event.subject },
    el('td', {}, clock(event.at)), el('td', {}, event.node), el('td', { class: 'kind' }, EVENT_NAMES[event.kind] ?? event.kind),
    el('td', {}, event.subject), el('td', { class: 'detail' }, event.detail), el('td', { class: 'number' }, event.count)));
  document.querySelector('#events tbody').replaceChildren(...rows);
  document.getElementById('events-empty').hidden = rows.length > 0;
}

// ---- polling --------------------------------------------------------------------------------

function setConnection(state, text) {
  const connection = document.getElementById('connection');
  connection.dataset.state = state;
  connection.textContent = text;
}

async function fetchView() {
  const last = recorded.points.length ? recorded.points[recorded.points.length - 1].at : null;
  const response = await fetch('api/cluster' + (last === null ? '' : '?since=' + last), { cache: 'no-store' });
  if (!response.ok) throw new Error('status ' + response.status + ' ' + (await response.text()).trim());
  return response.json();
}

function render(view) {
  document.getElementById('self').textContent = view.self;
  remember(view);
  renderNodes(view);
  renderCharts(view);
  renderEvents(view);
  const down = view.nodes.filter((node) => node.health !== 'up').length;
  setConnection(down === 0 ? 'live' : 'degraded',
    (down === 0 ? 'all ' + view.nodes.length + ' nodes up' : down + ' of ' + view.nodes.length + ' nodes not up')
      + ' · updated ' + clock(view.at));
}

async function poll() {
  let view;
  try {
    view = await fetchView();
  } catch (error) {
    setConnection('lost', 'cannot reach ' + location.host + ' (' + error.message + '), retrying');
    setTimeout(poll, POLL_MILLIS);
    return;
  }
  // Scheduled first, so that the polling goes on; a failure to render is a bug of this page and
  // is left to reach the console (the browser test fails on it), not shown as a lost connection.
  setTimeout(poll, POLL_MILLIS);
  render(view);
}

// ---- key lookup -----------------------------------------------------------------------------

async function lookUp(key) {
  const message = document.getElementById('lookup-message');
  const table = document.getElementById('replicas');
  message.textContent = 'reading every node…';
  try {
    const response = await fetch('api/key?id=' + encodeURIComponent(key), { cache: 'no-store' });
    if (!response.ok) {
      message.textContent = 'status ' + response.status + ': ' + (await response.text()).trim();
      table.hidden = true;
      return;
    }
    const answer = await response.json();
    const rows = answer.replicas.map((replica) => el('tr',
      { 'data-node': replica.node, 'data-holds': replica.holds, 'data-timestamp': replica.timestamp },
      el('td', { class: 'number' }, replica.rank), el('td', {}, replica.node),
      el('td', { class: 'holds' }, replica.holds), el('td', { class: 'timestamp' }, replica.timestamp ?? '–'),
      el('td', {}, replica.writtenAt ?? '–'), el('td', {}, replica.stampedBy ?? '–'),
      el('td', { class: 'number' }, replica.valueBytes === null ? '–' : bytes(replica.valueBytes)),
      el('td', { class: 'detail' }, replica.error ?? '')));
    table.querySelector('tbody').replaceChildren(...rows);
    table.hidden = false;
    const timestamps = new Set(answer.replicas.filter((r) => r.timestamp !== null).map((r) => r.timestamp));
    const failed = answer.replicas.filter((r) => r.holds === 'error').length;
    message.textContent = 'key "' + answer.key + '" read ' + clock(Date.now())
      + (timestamps.size > 1 ? ' · the nodes hold different versions' : '')
      + (failed > 0 ? ' · ' + failed + ' node(s) did not answer' : '');
  } catch (error) {
    message.textContent = 'cannot reach ' + location.host + ' (' + error.message + ')';
  }
}

function startLookup() {
  const form = document.getElementById('lookup');
  const input = document.getElementById('key');
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const url = new URL(location.href);
    url.searchParams.set('key', input.value);
    window.history.replaceState(null, '', url); // a reload or a shared link shows the same key
    lookUp(input.value);
  });
  const key = new URLSearchParams(location.search).get('key');
  if (key) {
    input.value = key;
    lookUp(key);
  }
}

startLookup();
poll();
