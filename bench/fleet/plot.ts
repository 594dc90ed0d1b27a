/**
 * The fleet run as an SVG the bench writes itself: syncs a second against the number of workers
 * (with the line of perfect scaling from one worker), and the staleness percentiles beside it.
 */
import type { FleetResults } from './report.js';

const W = 720;
const H = 360;
/** The bottom margin holds the axis label and, under it, the legend (two entries a row). */
const PAD = { left: 56, right: 16, top: 36, bottom: 104 };
const PANEL_W = (W - 24) / 2;

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

interface Series {
  name: string;
  color: string;
  points: [number, number][];
  dashed?: boolean;
}

function panel(
  x0: number,
  title: string,
  yLabel: string,
  series: Series[],
  xs: number[],
  yMax: number,
): string {
  const plotW = PANEL_W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const xMin = Math.min(...xs);
  const xMax = Math.max(...xs);
  const sx = (x: number) =>
    x0 + PAD.left + (xMax === xMin ? plotW / 2 : ((x - xMin) / (xMax - xMin)) * plotW);
  const sy = (y: number) => PAD.top + plotH - (y / yMax) * plotH;
  const parts: string[] = [];
  parts.push(
    `<text x="${x0 + PANEL_W / 2}" y="20" text-anchor="middle" font-weight="600">${escape(title)}</text>`,
  );
  for (let i = 0; i <= 4; i += 1) {
    const y = (yMax * i) / 4;
    parts.push(
      `<line x1="${x0 + PAD.left}" x2="${x0 + PAD.left + plotW}" y1="${sy(y)}" y2="${sy(y)}" stroke="#e5e7eb"/>`,
      `<text x="${x0 + PAD.left - 6}" y="${sy(y) + 4}" text-anchor="end" font-size="11">${y.toFixed(yMax < 5 ? 1 : 0)}</text>`,
    );
  }
  for (const x of xs)
    parts.push(
      `<text x="${sx(x)}" y="${H - PAD.bottom + 16}" text-anchor="middle" font-size="11">${x}</text>`,
    );
  parts.push(
    `<text x="${x0 + PAD.left + plotW / 2}" y="${H - PAD.bottom + 34}" text-anchor="middle" font-size="12">worker processes</text>`,
    `<text transform="translate(${x0 + 14} ${PAD.top + plotH / 2}) rotate(-90)" text-anchor="middle" font-size="12">${escape(yLabel)}</text>`,
  );
  series.forEach((s, i) => {
    const path = s.points
      .map(([x, y], j) => `${j === 0 ? 'M' : 'L'}${sx(x).toFixed(1)},${sy(y).toFixed(1)}`)
      .join(' ');
    parts.push(
      `<path d="${path}" fill="none" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="5 4"' : ''}/>`,
    );
    for (const [x, y] of s.points)
      parts.push(`<circle cx="${sx(x)}" cy="${sy(y)}" r="3" fill="${s.color}"/>`);
    // The legend goes under the plot, so it never covers a point.
    const lx = x0 + PAD.left + (i % 2) * 150;
    const ly = H - PAD.bottom + 56 + Math.floor(i / 2) * 18;
    parts.push(
      `<line x1="${lx}" x2="${lx + 18}" y1="${ly}" y2="${ly}" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="5 4"' : ''}/>`,
      `<text x="${lx + 22}" y="${ly + 4}" font-size="11">${escape(s.name)}</text>`,
    );
  });
  return parts.join('\n');
}

export function renderFleetSvg(results: FleetResults): string {
  const xs = results.capacities.map((c) => c.workers);
  const one = results.capacities.find((c) => c.workers === 1);
  const measured: Series = {
    name: 'measured',
    color: '#2563eb',
    points: results.capacities.map((c) => [c.workers, c.syncsPerS]),
  };
  const linear: Series = {
    name: 'linear from 1 worker',
    color: '#9ca3af',
    dashed: true,
    points: one ? xs.map((x) => [x, one.syncsPerS * x]) : [],
  };
  // 50,000 connections a worker at a 6-hour interval is this many syncs a second per worker.
  const target: Series = {
    name: 'target: 50k a worker at 6 h',
    color: '#dc2626',
    dashed: true,
    points: xs.map((x) => [x, (50_000 / 21_600) * x]),
  };
  const syncMax = Math.max(1, ...measured.points.map((p) => p[1]), ...linear.points.map((p) => p[1])) * 1.25;
  const fxs = results.freshnesses.map((f) => f.workers);
  const stale: Series[] = [
    { name: 'p50', color: '#16a34a', points: results.freshnesses.map((f) => [f.workers, f.stalenessP50]) },
    { name: 'p99', color: '#dc2626', points: results.freshnesses.map((f) => [f.workers, f.stalenessP99]) },
    {
      name: 'max',
      color: '#f59e0b',
      dashed: true,
      points: results.freshnesses.map((f) => [f.workers, f.stalenessMax]),
    },
    {
      name: 'limit for p99 (1.25×)',
      color: '#6b7280',
      dashed: true,
      points: (fxs.length ? fxs : [1]).map((x) => [x, 1.25]),
    },
  ];
  const staleMax = Math.max(1.5, ...stale.flatMap((s) => s.points.map((p) => p[1]))) * 1.2;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif">`,
    `<rect width="${W}" height="${H}" fill="#fff"/>`,
    panel(
      0,
      'capacity: syncs finished a second',
      'syncs / s',
      [measured, linear, target],
      xs.length ? xs : [1],
      syncMax,
    ),
    panel(
      PANEL_W + 24,
      'freshness at the 6 h request rate',
      'time since last success ÷ interval',
      stale,
      fxs.length ? fxs : [1],
      staleMax,
    ),
    '</svg>',
    '',
  ].join('\n');
}
