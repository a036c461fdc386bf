/**
 * The calls scripts/bench-semantic.ts times: its realistic queries (the flights model, 3,000,000 rows,
 * and the generated 30,000-row `orders` model) and a JSON-RPC tools/call client over plain fetch.
 */
import type { PhaseTimes } from './bench-stats.ts';
import { orderRows } from './bench-semantic-setup.ts';

/** The small aggregate of the issue: 5 rows over the 3,376 airports. */
export const smallAggregate = 'SELECT state, COUNT(*) AS airports FROM origin_airports GROUP BY state '
  + 'ORDER BY airports DESC LIMIT 5';

/** One realistic query; `heavy` marks the whole-table aggregates over the 3 M flights. */
export interface BenchQuery {
  name: string;
  model: 'flights' | 'orders';
  sql: string;
  params?: string[];
  heavy?: boolean;
}

/** The realistic queries, in the order they are run and printed. */
export const queries: BenchQuery[] = [
  {
    name: 'state with most delayed departures', model: 'flights', heavy: true,
    sql: 'SELECT o.state, COUNT(*) AS delayed FROM flights f JOIN origin_airports o ON f.origin = o.iata '
      + 'WHERE f.delay > 0 GROUP BY o.state ORDER BY delayed DESC LIMIT 5',
  },
  {
    name: 'average delay per month', model: 'flights', heavy: true,
    sql: 'SELECT departure_month, AVG(delay) AS avg_delay FROM flights GROUP BY 1 ORDER BY 1',
  },
  {
    name: 'top routes', model: 'flights', heavy: true,
    sql: 'SELECT route, COUNT(*) AS n FROM flights GROUP BY route ORDER BY n DESC LIMIT 10',
  },
  {
    name: 'point lookup with params', model: 'flights', params: ['SFO', '15'],
    sql: 'SELECT COUNT(*) FROM flights WHERE origin = $1 AND delay > $2',
  },
  { name: '1,000 rows', model: 'flights', sql: 'SELECT date, delay, origin, destination FROM flights LIMIT 1000' },
  { name: 'small aggregate', model: 'flights', sql: smallAggregate },
  {
    name: `orders: 10-row GROUP BY over ${orderRows.toLocaleString('en-US')}`, model: 'orders',
    sql: 'SELECT region, COUNT(*) AS orders, SUM(amount) AS revenue FROM orders GROUP BY region ORDER BY region',
  },
];

/** The dataset names of each model (for the validator's own timing). */
export const datasetsOf: Record<BenchQuery['model'], string[]> = {
  flights: ['flights', 'origin_airports', 'destination_airports'],
  orders: ['orders'],
};

/** One tools/call; `phases` collects its Server-Timing. @throws Error on an HTTP or tool error */
export type Caller = (name: string, args: Record<string, unknown>, phases?: PhaseTimes) => Promise<unknown>;

/** A JSON-RPC tools/call over plain fetch (no SDK client in the timed path), keeping Server-Timing. */
export function mcpCaller(endpoint: string, token: string, extraHeaders: Record<string, string> = {}): Caller {
  let id = 0;
  const headers = {
    'content-type': 'application/json', accept: 'application/json, text/event-stream',
    authorization: `Bearer ${token}`, ...extraHeaders,
  };
  return async (name, args, phases) => {
    const call = { jsonrpc: '2.0', id: (id += 1), method: 'tools/call', params: { name, arguments: args } };
    const body = JSON.stringify(call);
    const response = await fetch(endpoint, { method: 'POST', headers, body });
    const answer = (await response.json()) as { result?: { isError?: boolean } };
    if (!response.ok || answer.result?.isError) {
      throw new Error(`${name} failed: ${JSON.stringify(answer).slice(0, 300)}`);
    }
    phases?.add(response.headers.get('server-timing'));
    return answer;
  };
}
