import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** The MCP Apps view of `get_weather`: the days of a result as a chart and a table. */
export const forecastViewUri = 'ui://weather/forecast.html';

/**
 * The page loads nothing: its script and style are inline and it makes no request (the host passes
 * the tool result through the App bridge). Declared to the host (`_meta.ui.csp`, no domains) and in
 * the page itself.
 */
export const forecastViewCsp = [
  "default-src 'none'",
  "script-src 'unsafe-inline'",
  "style-src 'unsafe-inline'",
  'img-src data:',
  "connect-src 'none'",
  "frame-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/**
 * The ext-apps browser bundle (App bridge with its dependencies), made usable inline: its closing
 * `export{local as Name,…}` becomes `const ExtApps = {Name: local,…}`.
 */
function inlineBridge(): string {
  const file = createRequire(import.meta.url).resolve('@modelcontextprotocol/ext-apps/app-with-deps');
  const source = readFileSync(file, 'utf8');
  const exported = /export\s*\{([^}]*)\};?\s*$/.exec(source);
  const names = (exported?.[1] ?? '').split(',').map((entry) => entry.trim().split(/\s+as\s+/));
  if (!exported || !names.some(([, name]) => name === 'App')) {
    throw new Error(
      `${file} does not end in an export list naming App: the @modelcontextprotocol/ext-apps version is not the one this server was built for (2.0.4)`,
    );
  }
  const body = source.slice(0, exported.index).replace(/<\/(script)/gi, '<\\/$1');
  const object = names.map(([local, name]) => `${name ?? local}:${local}`).join(',');
  return `${body}\nconst ExtApps={${object}};`;
}

const style = `
:root { color-scheme: light dark; }
body {
  margin: 0; padding: 12px 16px;
  font-family: var(--font-sans, system-ui, -apple-system, "Segoe UI", "Hiragino Sans", "Noto Sans JP", sans-serif);
  background: var(--color-background-primary, Canvas); color: var(--color-text-primary, CanvasText);
}
h1 { font-size: 1.1rem; margin: 0 0 2px; }
.note { color: var(--color-text-secondary, GrayText); font-size: 0.8rem; margin: 0 0 8px; }
svg { width: 100%; height: auto; display: block; }
svg text { fill: currentColor; font-size: 12px; }
svg .axis { fill: var(--color-text-secondary, GrayText); font-size: 11px; }
svg .grid { stroke: var(--color-border-secondary, rgba(128, 128, 128, 0.25)); }
svg .rain { fill: #7fb9e3; opacity: 0.75; }
svg .line { fill: none; stroke-width: 2.5; stroke-linejoin: round; }
svg .dot { fill: var(--color-background-primary, Canvas); stroke-width: 2; }
svg .line.max, svg .dot.max { stroke: #d1495b; }
svg .line.min, svg .dot.min { stroke: #2e6fba; }
svg .label { font-weight: 700; paint-order: stroke; stroke: var(--color-background-primary, Canvas); stroke-width: 3px; }
svg .label.max { fill: #d1495b; }
svg .label.min { fill: #2e6fba; }
table { border-collapse: collapse; width: 100%; margin-top: 8px; font-size: 0.85rem; }
th, td { padding: 4px 6px; text-align: right; border-bottom: 1px solid var(--color-border-secondary, rgba(128, 128, 128, 0.25)); }
th:first-child, td:first-child, th:nth-child(2), td.weather { text-align: left; }
td.high { color: #d1495b; } td.low { color: #2e6fba; } td.rain { color: #2a7ab0; font-weight: 700; }
`;

// Browser code: builds the chart with DOM calls only (textContent, never HTML from the data).
const script = `
const { App, applyDocumentTheme, applyHostStyleVariables } = ExtApps;
const byId = (id) => document.getElementById(id);
const svg = byId('chart');
const svgNamespace = svg.namespaceURI;
const weekdays = ['日', '月', '火', '水', '木', '金', '土'];

function draw(parent, name, attributes, text) {
  const node = document.createElementNS(svgNamespace, name);
  for (const key of Object.keys(attributes)) node.setAttribute(key, String(attributes[key]));
  if (text !== undefined) node.textContent = text;
  parent.appendChild(node);
  return node;
}

function rainOf(day) {
  const chances = (day.precipitation || []).map((block) => block.probability).filter((p) => p !== null);
  return chances.length > 0 ? Math.max(...chances) : null;
}

function dateLabel(date) {
  const [year, month, day] = date.split('-').map(Number);
  return month + '/' + day + '(' + weekdays[new Date(Date.UTC(year, month - 1, day)).getUTCDay()] + ')';
}

function drawChart(days) {
  svg.replaceChildren();
  const width = 640, left = 40, right = width - 40, top = 12, bottom = 200;
  svg.setAttribute('viewBox', '0 0 ' + width + ' 232');
  const temperatures = days.flatMap((day) => [day.tempMax, day.tempMin]).filter((t) => t !== null);
  const low = temperatures.length ? Math.floor((Math.min(...temperatures) - 2) / 5) * 5 : 0;
  const high = temperatures.length ? Math.ceil((Math.max(...temperatures) + 2) / 5) * 5 : 10;
  const column = (right - left) / Math.max(days.length, 1);
  const x = (index) => left + column * (index + 0.5);
  const yOfTemperature = (value) => bottom - ((value - low) / (high - low)) * (bottom - top);
  const yOfRain = (value) => bottom - (value / 100) * (bottom - top);
  for (let value = low; value <= high; value += 5) {
    const y = yOfTemperature(value);
    draw(svg, 'line', { x1: left, x2: right, y1: y, y2: y, class: 'grid' });
    draw(svg, 'text', { x: left - 6, y: y + 4, 'text-anchor': 'end', class: 'axis' }, value + '°');
  }
  for (const value of [0, 50, 100]) {
    draw(svg, 'text', { x: right + 6, y: yOfRain(value) + 4, class: 'axis' }, value + '%');
  }
  days.forEach((day, index) => {
    const rain = rainOf(day);
    if (rain !== null) {
      const barWidth = column * 0.46;
      draw(svg, 'rect', { x: x(index) - barWidth / 2, y: yOfRain(rain), width: barWidth, height: bottom - yOfRain(rain), class: 'rain' });
    }
    draw(svg, 'text', { x: x(index), y: bottom + 18, 'text-anchor': 'middle' }, dateLabel(day.date));
  });
  for (const [key, offset] of [['tempMax', -9], ['tempMin', 18]]) {
    const kind = key === 'tempMax' ? 'max' : 'min';
    let run = [];
    const flush = () => {
      if (run.length > 1) draw(svg, 'polyline', { points: run.join(' '), class: 'line ' + kind });
      run = [];
    };
    days.forEach((day, index) => {
      if (day[key] === null) return flush();
      run.push(x(index) + ',' + yOfTemperature(day[key]));
    });
    flush();
    days.forEach((day, index) => {
      if (day[key] === null) return;
      const y = yOfTemperature(day[key]);
      draw(svg, 'circle', { cx: x(index), cy: y, r: 4, class: 'dot ' + kind });
      draw(svg, 'text', { x: x(index), y: y + offset, 'text-anchor': 'middle', class: 'label ' + kind }, Math.round(day[key]) + '°');
    });
  }
}

function cell(row, text, className) {
  const td = document.createElement('td');
  td.textContent = text;
  if (className) td.className = className;
  row.appendChild(td);
}

function showText(result) {
  const text = (result.content || []).filter((block) => block.type === 'text').map((block) => block.text).join('\\n');
  byId('status').textContent = text || '予報を表示できませんでした。';
}

function show(result) {
  const data = result && result.structuredContent;
  if (result.isError || !data || !Array.isArray(data.days) || data.days.length === 0) return showText(result);
  const weekly = data.requested === 'week' || data.requested === '週間';
  const reported = (weekly && data.weeklyReportDatetime) || data.reportDatetime;
  byId('title').textContent = data.matchedPlace.name + 'の' + (weekly ? '週間' : '') + '天気予報';
  byId('note').textContent =
    data.office.name + ' ' + data.area.name + '・気象庁 ' + String(reported).slice(0, 16).replace('T', ' ') + ' 発表';
  byId('status').textContent = '';
  drawChart(data.days);
  const rows = byId('rows');
  rows.replaceChildren();
  for (const day of data.days) {
    const row = document.createElement('tr');
    const rain = rainOf(day);
    cell(row, day.label || dateLabel(day.date));
    cell(row, day.weather, 'weather');
    cell(row, day.tempMax === null ? '-' : day.tempMax + '°C', 'high');
    cell(row, day.tempMin === null ? '-' : day.tempMin + '°C', 'low');
    cell(row, rain === null ? '-' : rain + '%', 'rain');
    rows.appendChild(row);
  }
  byId('table').hidden = false;
  byId('attribution').textContent = data.attribution || '出典：気象庁';
}

function applyContext(context) {
  if (context && context.theme) applyDocumentTheme(context.theme);
  if (context && context.styles && context.styles.variables) applyHostStyleVariables(context.styles.variables);
}

const app = new App({ name: 'mcp-server-weather forecast', version: '1.0.0' }, {}, { autoResize: true });
app.ontoolinput = (params) => {
  const location = params && params.arguments && params.arguments.location;
  if (location) byId('status').textContent = location + 'の予報を取得しています…';
};
app.ontoolresult = show;
app.onhostcontextchanged = applyContext;
app.connect().then(
  () => applyContext(app.getHostContext()),
  (error) => { byId('status').textContent = '表示元のアプリに接続できませんでした: ' + error; },
);
`;

let page: string | undefined;

/** The view's self-contained HTML, built once (the bridge is read from the installed package). */
export function forecastViewHtml(): string {
  page ??= `<!DOCTYPE html>
<html lang="ja">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${forecastViewCsp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>天気予報</title>
<style>${style}</style>
</head>
<body>
<h1 id="title">天気予報</h1>
<p class="note" id="note"></p>
<p id="status">予報を待っています…</p>
<svg id="chart" role="img" aria-label="最高・最低気温と降水確率"></svg>
<table id="table" hidden>
<thead><tr><th>日付</th><th>天気</th><th>最高</th><th>最低</th><th>降水確率</th></tr></thead>
<tbody id="rows"></tbody>
</table>
<p class="note" id="attribution"></p>
<script type="module">
${inlineBridge()}
{
${script}
}
</script>
</body>
</html>
`;
  return page;
}
