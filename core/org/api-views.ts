/**
 * Answer shapes of GET /api/orgs (bins/api/org-routes.ts), shared with the web app.
 *
 * Source: ../shared/spec/platform-service.md § Authentication rule 8; issue 7 § Organizations and roles.
 */
import { Type, type Static } from '@sinclair/typebox';

/** An organization the caller belongs to; `createdAt` ISO-8601. */
export const OrganizationView = Type.Object({
  id: Type.String(), name: Type.String(),
  kind: Type.Union([Type.Literal('default'), Type.Literal('personal'), Type.Literal('shared')]),
  createdAt: Type.String(),
});
export type OrganizationView = Static<typeof OrganizationView>;

/** GET /api/orgs. */
export const OrganizationListAnswer = Type.Object({ organizations: Type.Array(OrganizationView) });
export type OrganizationListAnswer = Static<typeof OrganizationListAnswer>;
