/**
 * Shapes of the playground's route, shared by the API (bins/api/semantic-playground-routes.ts) and the web
 * app's Playground page (web/src/pages/semantic/PlaygroundPage.tsx).
 *
 * Source: spec/semantic-query-service.md § What the service does 2, § Endpoints, § Authentication;
 * docs/decisions.md D9.
 */
import { type Static, Type } from '@sinclair/typebox';

/**
 * Body of a 201 from POST /api/semantic/projects/:slug/playground-token: a bearer for the project's own
 * endpoints (/mcp/<slug>/test/mcp and /mcp/<slug>/mcp) that reaches every model of the project, expires
 * 8 h after minting (`expiresAt`, ISO-8601), and replaces the member's earlier playground token (revoked).
 */
export const PlaygroundTokenView = Type.Object({
  token: Type.String(),
  expiresAt: Type.String(),
  tokenId: Type.String(),
});
export type PlaygroundTokenView = Static<typeof PlaygroundTokenView>;

/** Which endpoint the playground calls: `test` (saved sources, /mcp/<slug>/test/mcp) or `production` (published,
 * /mcp/<slug>/mcp). */
export const PlaygroundPlane = Type.Union([Type.Literal('test'), Type.Literal('production')]);
export type PlaygroundPlane = Static<typeof PlaygroundPlane>;

/** The endpoint path of a project's plane, same origin (through the front proxy). */
export function endpointPath(slug: string, plane: PlaygroundPlane): string {
  return `/mcp/${encodeURIComponent(slug)}/${plane === 'test' ? 'test/mcp' : 'mcp'}`;
}
