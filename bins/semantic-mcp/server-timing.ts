/**
 * Where each millisecond of one endpoint request went, sent back as a `Server-Timing` header
 * (`auth;dur=0.41, plane;dur=0.02, tool;dur=3.10`), so a client, the benchmark or a browser's
 * developer tools can see the breakdown without a profiler.
 *
 * Source: spec/semantic-query-service.md § Endpoints; issue "a hot path without waste".
 */

/**
 * Phase durations of one request, in milliseconds (fractional), in the order first measured.
 *
 * Source: spec/semantic-query-service.md § Endpoints
 */
export interface ServerTiming {
  /** Runs `work` and adds its duration to phase `name` (also when it throws). */
  measure<T>(name: string, work: () => Promise<T>): Promise<T>;
  /** Adds `ms` to phase `name` (a duration measured elsewhere, e.g. inside a query process). */
  add(name: string, ms: number): void;
  /** The `Server-Timing` header value, e.g. `rate;dur=0.05, auth;dur=0.40, total;dur=4.10`. */
  header(): string;
}

/**
 * Starts timing a request; `total` runs from this call to {@link ServerTiming.header}.
 *
 * Source: spec/semantic-query-service.md § Endpoints
 */
export function startServerTiming(): ServerTiming {
  const started = performance.now();
  const phases = new Map<string, number>();
  const add = (name: string, ms: number): void => {
    phases.set(name, (phases.get(name) ?? 0) + ms);
  };
  return {
    async measure(name, work) {
      const t0 = performance.now();
      try {
        return await work();
      } finally {
        add(name, performance.now() - t0);
      }
    },
    add,
    header() {
      const parts = [...phases].map(([name, ms]) => `${name};dur=${ms.toFixed(2)}`);
      parts.push(`total;dur=${(performance.now() - started).toFixed(2)}`);
      return parts.join(', ');
    },
  };
}
