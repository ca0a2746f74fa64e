/**
 * The style sheet and the script of the HTML report, inlined into every report so that
 * the file loads nothing from the network. The script reads the trace from the JSON block
 * `#trace-data`, draws one state at a time, and steps with the keyboard (ArrowLeft,
 * ArrowRight, Home, End) or a click on the timeline. It writes only `textContent`, never
 * markup, so nothing in a trace can inject into the page.
 */

/** The report's style sheet. */
export const REPORT_CSS = `
:root { color-scheme: light; --ink: #1d2330; --muted: #5f6b7a; --line: #d8dde4; --bg: #f6f7f9; --bad: #c62828; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); }
header { padding: 16px 24px; background: #fff; border-bottom: 1px solid var(--line); }
h1 { margin: 0 0 4px; font-size: 20px; }
h1.bad { color: var(--bad); }
.model, .hint { color: var(--muted); margin: 2px 0; }
.headline { margin: 8px 0 0; font-weight: 600; }
main { display: grid; grid-template-columns: minmax(280px, 360px) 1fr; gap: 16px; padding: 16px 24px; align-items: start; }
nav { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 6px; max-height: calc(100vh - 160px); overflow: auto; }
nav ol { list-style: none; margin: 0; padding: 0; }
.step { display: grid; grid-template-columns: 2.2em 1fr auto; gap: 8px; align-items: center; width: 100%; padding: 5px 8px; border: 0; border-radius: 6px; background: none; font: inherit; text-align: left; cursor: pointer; color: inherit; }
.step:hover { background: #eef1f5; }
.step[aria-current="step"] { background: #e3ebff; outline: 2px solid #4c6ef5; }
.step .num { color: var(--muted); font-variant-numeric: tabular-nums; }
.step .act { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
.step.violation .act { color: var(--bad); font-weight: 700; }
.mini { display: flex; gap: 2px; }
.mini span { width: 14px; height: 18px; border-radius: 3px; border: 1px solid rgba(0,0,0,.15); background: linear-gradient(var(--h) 0 50%, var(--d) 50% 100%); }
.mini span.leak { outline: 2px solid var(--bad); outline-offset: 1px; }
section { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 16px 20px; }
h2 { margin: 0 0 6px; font-size: 18px; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
#narration { margin: 0 0 12px; }
.grid { display: flex; flex-wrap: wrap; gap: 10px; margin: 8px 0 14px; }
.page { min-width: 132px; border: 1px solid var(--line); border-radius: 8px; overflow: hidden; background: #fff; }
.page .id { padding: 3px 8px; font-size: 12px; color: var(--muted); border-bottom: 1px solid var(--line); display: flex; justify-content: space-between; }
.page .row { padding: 6px 8px; display: flex; justify-content: space-between; gap: 6px; }
.page .row b { font-weight: 600; }
.page .row small { color: rgba(0,0,0,.6); }
.page.changed { box-shadow: 0 0 0 2px #f2b705; }
.page.leak { box-shadow: 0 0 0 3px var(--bad); }
.page.leak .id { color: #fff; background: var(--bad); font-weight: 700; }
ul.changes { margin: 0 0 12px; padding-left: 18px; }
table { border-collapse: collapse; margin: 0 0 12px; }
th, td { text-align: left; padding: 4px 12px 4px 0; border-bottom: 1px solid var(--line); }
th { color: var(--muted); font-weight: 500; }
#verdict { border-left: 4px solid var(--bad); background: #fdecec; padding: 8px 12px; border-radius: 4px; }
#verdict[hidden] { display: none; }
#verdict p { margin: 4px 0; }
#verdict .detail { color: #5a2a2a; font-size: 13px; }
.legend { display: flex; flex-wrap: wrap; gap: 10px; margin: 8px 0 0; color: var(--muted); }
.legend i { display: inline-block; width: 12px; height: 12px; border-radius: 3px; margin-right: 4px; vertical-align: -1px; border: 1px solid rgba(0,0,0,.15); }
details { margin-top: 12px; }
pre { background: var(--bg); padding: 10px; border-radius: 6px; overflow: auto; font-size: 12px; }
`;

/** The report's script: draws the selected state and handles stepping. */
export const REPORT_JS = `
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('trace-data').textContent);
  var last = data.steps.length - 1;
  var current = 0;
  var buttons = [];
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function color(name) { return name === null ? data.colors[''] : (data.colors[name] || data.colors['']); }
  function mini(step) {
    var box = el('span', 'mini');
    step.pages.forEach(function (p) {
      var c = el('span', p.leak ? 'leak' : '');
      c.style.setProperty('--h', color(p.holder));
      c.style.setProperty('--d', color(p.data));
      c.title = 'page ' + p.id + ': held by ' + (p.holder || 'nobody') + ', data of ' + (p.data || 'nobody');
      box.appendChild(c);
    });
    return box;
  }
  function row(label, value) {
    var r = el('div', 'row');
    r.appendChild(el('small', '', label));
    var b = el('b', '', value === null ? '—' : value);
    r.style.background = color(value);
    r.appendChild(b);
    return r;
  }
  function show(k) {
    current = Math.max(0, Math.min(last, k));
    var s = data.steps[current];
    buttons.forEach(function (b, i) {
      if (i === current) b.setAttribute('aria-current', 'step'); else b.removeAttribute('aria-current');
    });
    buttons[current].scrollIntoView({ block: 'nearest' });
    document.getElementById('step-title').textContent = s.action === null ? 'state 0 (initial)' : 'step ' + s.index + ': ' + s.action;
    document.getElementById('narration').textContent = s.narration;
    var grid = document.getElementById('grid');
    grid.replaceChildren();
    s.pages.forEach(function (p) {
      var cell = el('div', 'page' + (p.changed ? ' changed' : '') + (p.leak ? ' leak' : ''));
      cell.dataset.page = String(p.id);
      var id = el('div', 'id');
      id.appendChild(el('span', '', 'page ' + p.id));
      id.appendChild(el('span', '', p.leak ? 'violation' : p.changed ? 'changed' : ''));
      cell.appendChild(id);
      cell.appendChild(row('holder', p.holder));
      cell.appendChild(row('data', p.data));
      if (data.tags) cell.appendChild(row('tag', p.tag));
      grid.appendChild(cell);
    });
    var changes = document.getElementById('changes');
    changes.replaceChildren();
    s.changes.forEach(function (c) { changes.appendChild(el('li', '', c)); });
    var body = document.getElementById('requests');
    body.replaceChildren();
    s.requests.forEach(function (q) {
      var tr = el('tr');
      [q.name, q.phase, q.table || '—', q.read.length ? q.read.join(', ') : '—'].forEach(function (v) { tr.appendChild(el('td', '', v)); });
      body.appendChild(tr);
    });
    var verdict = document.getElementById('verdict');
    verdict.replaceChildren();
    verdict.hidden = current !== data.violationStep;
    if (!verdict.hidden) {
      data.headline.forEach(function (h) { verdict.appendChild(el('p', '', data.invariant + ': ' + h)); });
      data.details.forEach(function (d) { verdict.appendChild(el('p', 'detail', d)); });
    }
    try { history.replaceState(null, '', '#step-' + current); } catch (e) { /* a file URL may refuse; stepping still works */ }
  }
  var list = document.getElementById('timeline');
  data.steps.forEach(function (s, i) {
    var li = el('li');
    var b = el('button', 'step' + (i === data.violationStep ? ' violation' : ''));
    b.type = 'button';
    b.dataset.step = String(i);
    b.appendChild(el('span', 'num', String(i)));
    b.appendChild(el('span', 'act', s.action === null ? 'initial state' : s.action));
    b.appendChild(mini(s));
    b.addEventListener('click', function () { show(i); });
    li.appendChild(b);
    list.appendChild(li);
    buttons.push(b);
  });
  document.addEventListener('keydown', function (e) {
    var next = { ArrowRight: current + 1, ArrowDown: current + 1, ArrowLeft: current - 1, ArrowUp: current - 1, Home: 0, End: last }[e.key];
    if (next === undefined) return;
    e.preventDefault();
    show(next);
  });
  var m = /^#step-(\\d+)$/.exec(location.hash);
  // Opens where the report is about: the violating state, unless the address names another.
  show(m ? Number(m[1]) : data.violationStep === null ? 0 : data.violationStep);
})();
`;
