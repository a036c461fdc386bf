/**
 * A time-series line chart drawn with uPlot, sized to its container (375 px to desktop), with a caption and
 * the figures as a table behind a disclosure for screen readers and keyboard users.
 *
 * Source: docs/decisions.md D9 (Monitoring: plots of calls and errors over time and of query latency).
 */
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

/** One line: its label, colour, and one value (or null for a gap) per x. */
export interface ChartSeries {
  label: string;
  stroke: string;
  values: (number | null)[];
}

/** A chart of `series` over `times` (ms since the epoch), `unit` naming the y values (e.g. "calls", "ms"). */
export function TimeChart({ title, times, series, unit }: { title: string; times: number[]; series: ChartSeries[]; unit: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const width = () => Math.max(240, el.clientWidth);
    const plot = new uPlot({
      width: width(),
      height: 220,
      scales: { x: { time: true } },
      axes: [{}, { label: unit, size: 60 }],
      series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.stroke, width: 2, spanGaps: false, points: { show: true, size: times.length < 60 ? 6 : 4 } }))],
      legend: { live: false },
    }, [times.map((t) => t / 1000), ...series.map((s) => s.values)] as uPlot.AlignedData, el);
    const resize = new ResizeObserver(() => plot.setSize({ width: width(), height: 220 }));
    resize.observe(el);
    return () => { resize.disconnect(); plot.destroy(); };
  }, [times, series, unit]);
  return (
    <figure className="mon-chart">
      <figcaption>{title}</figcaption>
      <div ref={box} className="mon-chart-canvas" role="img" aria-label={`${title}: ${series.map((s) => `${s.label} ${summary(s.values, unit)}`).join('; ')}`} />
      <details>
        <summary>Show the figures</summary>
        <div className="table-wrap">
          <table className="mon-table">
            <thead><tr><th scope="col">From</th>{series.map((s) => <th key={s.label} scope="col">{s.label} ({unit})</th>)}</tr></thead>
            <tbody>
              {times.map((t, i) => series.some((s) => s.values[i] !== null && s.values[i] !== 0) ? (
                <tr key={t}><td>{new Date(t).toLocaleString()}</td>{series.map((s) => <td key={s.label}>{s.values[i] ?? '—'}</td>)}</tr>
              ) : null)}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}

function summary(values: (number | null)[], unit: string): string {
  const present = values.filter((v): v is number => v !== null);
  if (present.length === 0) return 'no data';
  return unit === 'ms' ? `highest ${Math.max(...present)} ms` : `total ${present.reduce((a, b) => a + b, 0)}, highest ${Math.max(...present)}`;
}
