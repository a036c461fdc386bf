/**
 * What GET /api/branding answers, shared by the API and the web app.
 *
 * Source: spec/platform-service.md § Endpoints (/api/branding); § Rules 18 (branding, powered-by note).
 */
import type { BrandingConfig } from './config-model.ts';

export { COLOUR_ROLES, PALETTE_HUES } from './branding-names.ts';

/**
 * Body of GET /api/branding: every field optional (no branding: `{}`).
 *
 * Source: spec/platform-service.md § Rules 18
 */
export interface BrandingView {
  title?: string;
  logoUrl?: string;
  colors?: Record<string, string>;
  appearancePalette?: Record<string, string>;
  /** Present (true) when the branding sets a title or logo: the web app shows a powered-by note. */
  poweredBy?: true;
}

/**
 * The branding the web app reads before its first page.
 *
 * Source: spec/platform-service.md § Rules 18
 */
export function brandingView(branding: BrandingConfig): BrandingView {
  return {
    ...(branding.title ? { title: branding.title } : {}),
    ...(branding.logo ? { logoUrl: branding.logo } : {}),
    ...(branding.colours ? { colors: { ...branding.colours } as Record<string, string> } : {}),
    ...(branding.appearancePalette
      ? { appearancePalette: { ...branding.appearancePalette } as Record<string, string> }
      : {}),
    ...(branding.title || branding.logo ? { poweredBy: true as const } : {}),
  };
}
