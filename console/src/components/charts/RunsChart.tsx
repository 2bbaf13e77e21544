import { useEffect, useRef } from 'react';
import uPlot, { type AlignedData, type Options } from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { RunStats } from '../../lib/api-types.js';

/** Status colours, drawn bottom to top in this order; the legend uses the same (styles.css swatches). */
export const STATUS_COLOURS: Record<string, string> = {
  success: '#2e9e4a',
  failed: '#d9463b',
  cancelled: '#8a94a3',
  running: '#3b7ddd',
  pending: '#d99a1e',
  retrying: '#a05bd6',
};
const ORDER = ['success', 'failed', 'cancelled', 'running', 'retrying', 'pending'];

const CLOCK = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
/** Axis labels as 24-hour clock times in the reader's zone. */
const clockTicks = (_u: uPlot, splits: number[]) => splits.map((s) => CLOCK.format(s * 1000));

const cssVar = (name: string, fallback: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;

/**
 * Runs per bucket by status as stacked bars (uPlot draws on a canvas: small and fast). Stacking
 * is done here: each series is the running total up to its status, drawn tallest first so the
 * lower ones cover it.
 */
function stacked(stats: RunStats): { data: AlignedData; statuses: string[] } {
  const x = stats.bucketStarts.map((iso) => Date.parse(iso) / 1000);
  const byStatus = new Map(stats.series.map((s) => [s.status as string, s.counts]));
  const statuses = ORDER.filter((s) => byStatus.has(s));
  const running = new Array<number>(x.length).fill(0);
  const cumulative = statuses.map((s) => {
    const counts = byStatus.get(s)!;
    return counts.map((c, i) => (running[i] = running[i]! + c));
  });
  // Tallest (last cumulative) first.
  return { data: [x, ...cumulative.slice().reverse()] as AlignedData, statuses: statuses.slice().reverse() };
}

export default function RunsChart({ stats, height = 220 }: { stats: RunStats; height?: number }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const { data, statuses } = stacked(stats);
    const text = cssVar('--muted', '#535c68');
    const grid = cssVar('--chart-grid', '#d5d9df');
    const bars = uPlot.paths.bars!({ size: [0.9, 24], gap: 0 });
    const options: Options = {
      width: Math.max(280, el.clientWidth),
      height,
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, Math.ceil(max))] } },
      axes: [
        { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid }, values: clockTicks },
        { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid }, size: 40, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000] },
      ],
      series: [{}, ...statuses.map((s) => ({ label: s, fill: STATUS_COLOURS[s], stroke: STATUS_COLOURS[s], width: 0, paths: bars, points: { show: false } }))],
    };
    const plot = new uPlot(options, data, el);
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(280, el.clientWidth), height }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [stats, height]);
  return <div ref={box} className="chart" />;
}
