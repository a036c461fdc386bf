/**
 * A scripted model for the demo agent (scripts/demo/agent) whose answers do not depend on the order in which
 * sessions call it: chats, MCP calls, webhook deliveries and schedule firings of the demo may run concurrently,
 * so turn n is chosen from request n's own body instead of a fixed list. It is the scripted model server of
 * test/helpers/scripted-model-server.ts (a real OpenAI-compatible server on 127.0.0.1) with a computed script.
 *
 * Rule: in a state offering `platform_advance`, the first request of a visit sets the variable `answer` to
 * {@link DEMO_ANSWER} and advances to the first state offered (review from answer, intake and briefing; done
 * from look-up); any later request of the visit (the engine sent tool results back: something was refused)
 * answers with text only, which parks the session for input instead of looping.
 */
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from './scripted-model-server.ts';

/** The answer every demo session gets. */
export const DEMO_ANSWER = 'California had the most delayed departures: 177,731 flights with delay > 0 (January to June 2001).';

interface ChatRequest {
  messages?: { role: string }[];
  tools?: { function: { name: string; parameters?: { properties?: { to?: { enum?: string[] } } } } }[];
}

/** The turn answering one chat-completions request of the demo agent. */
export function demoTurn(body: ChatRequest | undefined): ScriptedTurn {
  const advance = body?.tools?.find((t) => t.function.name === 'platform_advance');
  const to = advance?.function.parameters?.properties?.to?.enum?.[0];
  if (!to || body?.messages?.at(-1)?.role === 'tool') return { text: 'I could not finish this answer; please rephrase the question.' };
  return {
    text: DEMO_ANSWER,
    toolCalls: [
      { name: 'platform_set_variables', arguments: { variables: { answer: DEMO_ANSWER } } },
      { name: 'platform_advance', arguments: { to, reason: 'The answer is written with its figures.' } },
    ],
  };
}

/** Starts the scripted model server answering every request with {@link demoTurn} of its body. */
export async function startDemoModelServer(): Promise<ScriptedModelServer> {
  let server: ScriptedModelServer | undefined;
  // The server reads turns[n] after recording request n; the proxy computes that turn from the recorded body.
  const turns = new Proxy([] as ScriptedTurn[], {
    get: (target, key) => (typeof key === 'string' && /^\d+$/.test(key) ? demoTurn(server?.requests[Number(key)]?.body as ChatRequest) : Reflect.get(target, key)),
  });
  server = await startScriptedModelServer(turns);
  return server;
}
