/**
 * Server spans of the API's inbound requests that start work: the webhook, callback, AG-UI and MCP endpoints and
 * the session routes. A request carrying a W3C `traceparent` continues the sender's trace; the handler runs inside
 * the span's context (AsyncLocalStorage), so a turn it creates (`insertTurn`) and a job it queues carry the span.
 * Names and attributes follow the HTTP semantic conventions: `POST /api/webhooks/{address}`, `http.request.method`,
 * `http.route`, `http.response.status_code`, and `url.path` as the route template, since an endpoint's address is a
 * secret of its own; never a query string, a header value or the body. Mounted only when the SDK exports traces
 * (bins/api/main.ts): otherwise nothing wraps a request. Source: docs/decisions.md D25 § 1.
 */
import { context, propagation, ROOT_CONTEXT, type Span, SpanKind, trace } from '@opentelemetry/api';
import { cairnTracer } from '../../core/telemetry/names.ts';
import { markFailed } from '../../core/telemetry/spans.ts';

/** The segments after `/api/sessions/{id}/` that are route literals (anything else is not traced). */
const SESSION_ACTION = /^[a-z][a-z-]{0,40}$/;

/**
 * The route template of a traced request path, or undefined for a path that is not traced.
 * E.g. `/api/webhooks/abc?x=1` gives `/api/webhooks/{address}`; `/api/sessions/s1/reply` gives
 * `/api/sessions/{id}/reply`.
 */
export function tracedRouteOf(path: string): string | undefined {
  const parts = path.split('/').slice(1);
  if (parts[0] !== 'api' || parts.some((p) => p === '')) return undefined;
  const [, area, second, third, fourth, fifth, , seventh] = parts;
  const n = parts.length;
  if (['webhooks', 'callbacks', 'agui', 'mcp'].includes(area!) && n === 3) return `/api/${area}/{address}`;
  if (area === 'mcp' && n === 5 && third === '.well-known' && fourth === 'oauth-protected-resource') {
    return '/api/mcp/{address}/.well-known/oauth-protected-resource';
  }
  if (area === 'sessions') {
    if (n === 2) return '/api/sessions';
    if (n === 3) return '/api/sessions/{id}';
    if (n === 4 && SESSION_ACTION.test(third!)) return `/api/sessions/{id}/${third}`;
  }
  if (area === 'agents' && second !== undefined) {
    if (n === 4 && third === 'sessions') return '/api/agents/{agent}/sessions';
    if (n === 6 && third === 'environments' && fifth === 'sessions') {
      return '/api/agents/{agent}/environments/{env}/sessions';
    }
    if (n === 8 && third === 'environments' && fifth === 'workflows' && seventh === 'sessions') {
      return '/api/agents/{agent}/environments/{env}/workflows/{workflow}/sessions';
    }
  }
  return undefined;
}

/** The path of `url` without its query (`request.url` is absolute). */
const pathOf = (url: string) => {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  const end = url.indexOf('?', start);
  return start < 0 ? '/' : url.slice(start, end < 0 ? undefined : end);
};

function ended(span: Span, status: number): void {
  span.setAttribute('http.response.status_code', status);
  if (status >= 500) markFailed(span, String(status));
  span.end();
}

/**
 * Runs `handle(request)` inside a server span when the request's path is traced (see {@link tracedRouteOf}), the
 * span parented from the request's `traceparent`; other requests run as they are. The span ends when the response
 * (its headers: a stream goes on after) is ready; a handler that throws ends it as a 500.
 */
export function traceInbound<R>(request: Request, handle: (request: Request) => R): R {
  const route = tracedRouteOf(pathOf(request.url));
  if (route === undefined) return handle(request);
  const method = request.method;
  const parent = propagation.extract(ROOT_CONTEXT, request.headers, {
    get: (headers, key) => headers.get(key) ?? undefined,
    keys: () => ['traceparent', 'tracestate', 'baggage'],
  });
  const span = cairnTracer().startSpan(`${method} ${route}`, {
    kind: SpanKind.SERVER,
    attributes: { 'http.request.method': method, 'http.route': route, 'url.path': route },
  }, parent);
  try {
    const result = context.with(trace.setSpan(parent, span), () => handle(request));
    if (result instanceof Promise) {
      return result.then(
        (response: unknown) => (ended(span, statusOf(response)), response),
        (error: unknown) => {
          ended(span, 500);
          throw error;
        },
      ) as R;
    }
    ended(span, statusOf(result));
    return result;
  } catch (error) {
    ended(span, 500);
    throw error;
  }
}

const statusOf = (response: unknown) => (response instanceof Response ? response.status : 200);

/**
 * The Elysia higher-order function (`app.wrap`) that puts {@link traceInbound} around every route's handler,
 * also the routes Bun serves natively.
 */
export function inboundSpans(fn: (...args: unknown[]) => unknown, request: Request) {
  return (req: Request = request) => traceInbound(req, (r) => fn(r));
}
