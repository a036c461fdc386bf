/**
 * Small helpers of the benchmarks: timing a call, median and p95, and the phases of the
 * `Server-Timing` headers the semantic endpoints send, kept per request so that a phase derived
 * from several (e.g. `engine − prepare − run − convert`) is the median of its per-request values.
 */

/** Median and 95th percentile of `ms` (milliseconds); NaN for an empty list. */
export function stats(ms: number[]): { median: number; p95: number } {
  const sorted = [...ms].sort((a, b) => a - b);
  if (sorted.length === 0) return { median: Number.NaN, p95: Number.NaN };
  const p95 = sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)];
  return { median: sorted[Math.floor(sorted.length / 2)], p95 };
}

/** Wall time of one call of `fn`, in milliseconds. */
export async function time(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

/** `n` with two decimals, right-aligned in 8 characters (`–` for NaN). */
export const fmt = (n: number): string => (Number.isNaN(n) ? '–' : n.toFixed(2)).padStart(8);

/** `a / b` as `1.23x`, right-aligned in 7 characters. */
export const ratio = (a: number, b: number): string => `${(a / b).toFixed(2)}x`.padStart(7);

/** One request's phases: name → milliseconds. */
export type Phases = Record<string, number>;

/** Collects `Server-Timing` headers (`rate;dur=0.05, auth;dur=0.40`), one record per request. */
export class PhaseTimes {
  private readonly requests: Phases[] = [];
  private readonly order: string[] = [];

  /** Adds one request's header value (a missing header adds an empty record). */
  add(header: string | null): void {
    const phases: Phases = {};
    for (const part of (header ?? '').split(',')) {
      const match = /^\s*([\w-]+);dur=([\d.]+)/.exec(part);
      if (!match) continue;
      phases[match[1]] = (phases[match[1]] ?? 0) + Number(match[2]);
      if (!this.order.includes(match[1])) this.order.push(match[1]);
    }
    this.requests.push(phases);
  }

  /** Median over requests of `derive(phases)` (a missing phase reads as 0). */
  median(derive: (phase: (name: string) => number) => number): number {
    return stats(this.requests.map((phases) => derive((name) => phases[name] ?? 0))).median;
  }

  /** `phase median` pairs in header order, e.g. `rate 0.02  auth 0.31  …  total 2.10`. */
  summary(): string {
    return this.order.map((name) => `${name} ${this.median((p) => p(name)).toFixed(2)}`).join('  ');
  }
}
