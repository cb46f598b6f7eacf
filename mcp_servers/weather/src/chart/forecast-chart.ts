import { createRequire } from 'node:module';

/** One day of the chart; a missing value leaves a gap. */
export interface ChartDay {
  /** YYYY-MM-DD. */
  date: string;
  tempMax: number | null;
  tempMin: number | null;
  /** Chance of rain, 0–100. */
  rain: number | null;
}

/** What the chart shows. Text is drawn with the bundled Latin font: keep it ASCII. */
export interface ForecastChart {
  title: string;
  subtitle: string;
  days: ChartDay[];
}

const width = 800;
const height = 390;
const plot = { left: 64, right: width - 64, top: 84, bottom: 300 };
const colours = { max: '#d1495b', min: '#2e6fba', rain: '#9cc9e8', rainText: '#2a7ab0', grid: '#e3e6ea' };
const weekdays = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

// The font ships in an npm package: no system font is assumed (CI machines and containers have none).
const require = createRequire(import.meta.url);
const fontFiles = ['400Regular/Roboto_400Regular.ttf', '700Bold/Roboto_700Bold.ttf'].map((file) =>
  require.resolve(`@expo-google-fonts/roboto/${file}`),
);

function escapeXml(text: string): string {
  return text.replace(/[&<>"]/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** Anything the Latin font cannot draw becomes "?" rather than an empty box. */
function ascii(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?');
}

function text(x: number, y: number, content: string, attributes = ''): string {
  return `<text x="${x.toFixed(1)}" y="${y.toFixed(1)}" ${attributes}>${escapeXml(content)}</text>`;
}

/** Polylines through consecutive known values; a missing day breaks the line. */
function segments(points: Array<[number, number] | null>): string[][] {
  const runs: string[][] = [[]];
  for (const point of points) {
    if (point) runs[runs.length - 1]?.push(`${point[0].toFixed(1)},${point[1].toFixed(1)}`);
    else if ((runs[runs.length - 1]?.length ?? 0) > 0) runs.push([]);
  }
  return runs.filter((run) => run.length > 1);
}

/** The chart as SVG: rain probability as bars (right axis), max and min °C as lines (left axis). */
export function forecastChartSvg(chart: ForecastChart): string {
  const days = chart.days;
  const temperatures = days.flatMap((day) => [day.tempMax, day.tempMin]).filter((t) => t !== null);
  const low = temperatures.length > 0 ? Math.floor((Math.min(...temperatures) - 2) / 5) * 5 : 0;
  const high = temperatures.length > 0 ? Math.ceil((Math.max(...temperatures) + 2) / 5) * 5 : 10;
  const plotHeight = plot.bottom - plot.top;
  const column = (plot.right - plot.left) / Math.max(days.length, 1);
  const xOf = (index: number) => plot.left + column * (index + 0.5);
  const yOfTemperature = (value: number) => plot.bottom - ((value - low) / (high - low)) * plotHeight;
  const yOfRain = (value: number) => plot.bottom - (value / 100) * plotHeight;
  const parts: string[] = [];

  parts.push(text(24, 34, ascii(chart.title), 'font-size="21" font-weight="700" fill="#1f2328"'));
  parts.push(text(24, 58, ascii(chart.subtitle), 'font-size="13" fill="#59636e"'));
  const legend: Array<[string, string, string]> = [
    ['max', colours.max, 'line'],
    ['min', colours.min, 'line'],
    ['rain %', colours.rain, 'bar'],
  ];
  legend.forEach(([label, colour, kind], index) => {
    const x = width - 250 + index * 78;
    parts.push(
      kind === 'line'
        ? `<line x1="${x}" y1="30" x2="${x + 20}" y2="30" stroke="${colour}" stroke-width="3"/>`
        : `<rect x="${x + 4}" y="23" width="12" height="14" fill="${colour}"/>`,
    );
    parts.push(text(x + 26, 35, label, 'font-size="13" fill="#3d444d"'));
  });

  // Temperature grid (left axis, every 5 °C) and the rain axis (right, 0/50/100 %).
  for (let value = low; value <= high; value += 5) {
    const y = yOfTemperature(value);
    parts.push(
      `<line x1="${plot.left}" y1="${y.toFixed(1)}" x2="${plot.right}" y2="${y.toFixed(1)}" stroke="${colours.grid}"/>`,
    );
    parts.push(text(plot.left - 8, y + 4, `${value}°`, 'font-size="12" fill="#59636e" text-anchor="end"'));
  }
  for (const value of [0, 50, 100]) {
    parts.push(text(plot.right + 8, yOfRain(value) + 4, `${value}%`, 'font-size="12" fill="#59636e"'));
  }

  days.forEach((day, index) => {
    const x = xOf(index);
    if (day.rain !== null) {
      const barWidth = column * 0.46;
      const top = yOfRain(day.rain);
      parts.push(
        `<rect x="${(x - barWidth / 2).toFixed(1)}" y="${top.toFixed(1)}" width="${barWidth.toFixed(1)}" height="${(plot.bottom - top).toFixed(1)}" fill="${colours.rain}"/>`,
      );
    }
    const [year, month, date] = day.date.split('-').map(Number) as [number, number, number];
    const weekday = weekdays[new Date(Date.UTC(year, month - 1, date)).getUTCDay()] ?? '';
    parts.push(
      text(x, plot.bottom + 22, `${month}/${date}`, 'font-size="14" fill="#1f2328" text-anchor="middle"'),
    );
    parts.push(text(x, plot.bottom + 40, weekday, 'font-size="12" fill="#59636e" text-anchor="middle"'));
    parts.push(
      text(
        x,
        plot.bottom + 68,
        day.rain === null ? '-' : `${day.rain}%`,
        `font-size="14" font-weight="700" fill="${colours.rainText}" text-anchor="middle"`,
      ),
    );
  });
  parts.push(
    `<line x1="${plot.left}" y1="${plot.bottom}" x2="${plot.right}" y2="${plot.bottom}" stroke="#8c959f"/>`,
  );

  for (const [key, colour, offset] of [
    ['tempMax', colours.max, -10],
    ['tempMin', colours.min, 20],
  ] as const) {
    const points = days.map((day, index) => {
      const value = day[key];
      return value === null ? null : ([xOf(index), yOfTemperature(value)] as [number, number]);
    });
    for (const run of segments(points)) {
      parts.push(
        `<polyline points="${run.join(' ')}" fill="none" stroke="${colour}" stroke-width="3" stroke-linejoin="round"/>`,
      );
    }
    days.forEach((day, index) => {
      const point = points[index];
      if (!point || day[key] === null) return;
      parts.push(
        `<circle cx="${point[0].toFixed(1)}" cy="${point[1].toFixed(1)}" r="4.5" fill="#ffffff" stroke="${colour}" stroke-width="2.5"/>`,
      );
      parts.push(
        text(
          point[0],
          point[1] + offset,
          `${Math.round(day[key])}°`,
          // A white halo keeps the label readable over a rain bar.
          `font-size="14" font-weight="700" fill="${colour}" stroke="#ffffff" stroke-width="3" paint-order="stroke" text-anchor="middle"`,
        ),
      );
    });
  }

  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Roboto">${parts.join('')}</svg>`;
}

type RenderAsync = typeof import('@resvg/resvg-js').renderAsync;
let renderer: Promise<RenderAsync> | undefined;

/**
 * Renders the chart as a PNG (resvg, off the event loop). The native renderer is loaded on first use,
 * so a platform without its prebuilt binary still serves text forecasts.
 */
export async function renderForecastChart(chart: ForecastChart): Promise<Buffer> {
  renderer ??= import('@resvg/resvg-js').then((module) => module.renderAsync);
  renderer.catch(() => {
    renderer = undefined;
  });
  const render = await renderer;
  const image = await render(forecastChartSvg(chart), {
    font: { loadSystemFonts: false, fontFiles, defaultFontFamily: 'Roboto' },
    background: '#ffffff',
    fitTo: { mode: 'original' },
  });
  return image.asPng();
}
