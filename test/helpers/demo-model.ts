/**
 * A scripted model for the demo agent (scripts/demo/agent) whose answers do not depend on the order in which
 * sessions call it: chats, MCP calls, webhook deliveries and schedule firings of the demo may run concurrently,
 * so turn n is chosen from request n's own body instead of a fixed list. It is the scripted model server of
 * test/helpers/scripted-model-server.ts (a real OpenAI-compatible server on 127.0.0.1) with a computed script.
 *
 * Rule: in a state offering `platform_advance`, the first request of a visit sets the variable `answer` to
 * {@link DEMO_ANSWER} and advances to the first state offered (review from answer, intake and briefing; done
 * from look-up); any later request of the visit (the engine sent tool results back: something was refused)
 * answers with text only, which parks the session for input instead of looping. A member message (or
 * webhook payload) holding {@link DEMO_UNCLEAR_QUESTION} is answered with {@link DEMO_CLARIFY} only, which
 * parks the session for the member's reply; the reply then takes the rule above. With the option `slowMs`, a
 * request whose last message is a member message holding {@link DEMO_SLOW} is answered after that many
 * milliseconds (its turn is still running when a test sends the next message; by default nothing is slow).
 */
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from './scripted-model-server.ts';

/** The answer every demo session gets. */
export const DEMO_ANSWER = 'California had the most delayed departures: 177,731 flights with delay > 0 (January to June 2001).';

/** A question the demo model asks back about instead of answering (the session waits for a reply). */
export const DEMO_UNCLEAR_QUESTION = 'Tell me about delays.';
/** What the demo model asks back. */
export const DEMO_CLARIFY = 'Do you mean departure delays or arrival delays?';
/** Words of a member message the demo model answers slowly, with the option `slowMs`. */
export const DEMO_SLOW = 'Take your time.';

/** Options of the demo model. */
export interface DemoModelOptions {
  /** Answer a member message holding {@link DEMO_SLOW} after this many milliseconds (default: no delay). */
  slowMs?: number;
}

interface ChatRequest {
  messages?: { role: string; content?: unknown }[];
  tools?: { function: { name: string; parameters?: { properties?: { to?: { enum?: string[] } } } } }[];
}

/** The turn answering one chat-completions request of the demo agent (slowed as `options` say). */
export function demoTurn(body: ChatRequest | undefined, options: DemoModelOptions = {}): ScriptedTurn {
  const last = body?.messages?.at(-1);
  const slow = options.slowMs !== undefined && last?.role === 'user' && JSON.stringify(last.content ?? '').includes(DEMO_SLOW);
  const turn = answerOf(body);
  return slow ? { ...turn, delayMs: options.slowMs } : turn;
}

function answerOf(body: ChatRequest | undefined): ScriptedTurn {
  const advance = body?.tools?.find((t) => t.function.name === 'platform_advance');
  const to = advance?.function.parameters?.properties?.to?.enum?.[0];
  const last = body?.messages?.at(-1);
  if (last?.role === 'user' && JSON.stringify(last.content ?? '').includes(DEMO_UNCLEAR_QUESTION)) return { text: DEMO_CLARIFY };
  if (!to || last?.role === 'tool') return { text: 'I could not finish this answer; please rephrase the question.' };
  return {
    text: DEMO_ANSWER,
    toolCalls: [
      { name: 'platform_set_variables', arguments: { variables: { answer: DEMO_ANSWER } } },
      { name: 'platform_advance', arguments: { to, reason: 'The answer is written with its figures.' } },
    ],
  };
}

/** Starts the scripted model server answering every request with {@link demoTurn} of its body. */
export async function startDemoModelServer(options: DemoModelOptions = {}): Promise<ScriptedModelServer> {
  return startComputedModelServer((body) => demoTurn(body as ChatRequest, options));
}

/**
 * Starts the scripted model server answering request n with `turnOf(body of request n)`, so concurrent
 * sessions each get the turn their own request asks for.
 */
export async function startComputedModelServer(turnOf: (body: unknown) => ScriptedTurn): Promise<ScriptedModelServer> {
  let server: ScriptedModelServer | undefined;
  // The server reads turns[n] after recording request n; the proxy computes that turn from the recorded body.
  const turns = new Proxy([] as ScriptedTurn[], {
    get: (target, key) => (typeof key === 'string' && /^\d+$/.test(key) ? turnOf(server?.requests[Number(key)]?.body) : Reflect.get(target, key)),
  });
  server = await startScriptedModelServer(turns);
  return server;
}
