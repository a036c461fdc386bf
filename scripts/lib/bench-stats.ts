/**
 * Small helpers of the benchmarks: timing a call, median and p95, and the per-phase medians of
 * the `Server-Timing` headers the semantic endpoints send.
 */

/** Median and 95th percentile of `ms` (milliseconds). */
export function stats(ms: number[]): { median: number; p95: number } {
  const sorted = [...ms].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)], p95: sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)] };
}

/** Wall time of one call of `fn`, in milliseconds. */
export async function time(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/** `n` with two decimals, right-aligned in 8 characters. */
export const fmt = (n: number): string => n.toFixed(2).padStart(8);

/** Collects `Server-Timing` headers (`rate;dur=0.05, auth;dur=0.40`) and gives the median of each phase. */
export class PhaseTimes {
  private readonly phases = new Map<string, number[]>();

  /** Adds one header value (ignores a missing one). */
  add(header: string | null): void {
    for (const part of (header ?? '').split(',')) {
      const match = /^\s*([\w-]+);dur=([\d.]+)/.exec(part);
      if (!match) continue;
      const list = this.phases.get(match[1]) ?? [];
      list.push(Number(match[2]));
      this.phases.set(match[1], list);
    }
  }

  /** `phase median` pairs in header order, e.g. `rate 0.02  auth 0.31  …  total 2.10`. */
  summary(): string {
    return [...this.phases].map(([name, values]) => `${name} ${stats(values).median.toFixed(2)}`).join('  ');
  }
}
