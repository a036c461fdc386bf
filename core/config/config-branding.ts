/**
 * Branding values: each one the platform cannot use is left out with a [config] note, never a refusal.
 *
 * Source: spec/platform-service.md § Rules 18; § Config sections named (branding).
 */
import { type BrandingConfig, COLOUR_ROLES, PALETTE_HUES } from './config-model.ts';

/**
 * Longest branding title.
 *
 * Source: spec/platform-service.md § Rules 18
 */
export const MAX_BRANDING_TITLE_CHARS = 80;

const hexColour = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const imageDataUri = /^data:image\/(?:png|jpeg|gif|webp|svg\+xml);base64,[A-Za-z0-9+/]+={0,2}$/;

function isHttpsUrl(text: string): boolean {
  try {
    return new URL(text).protocol === 'https:';
  } catch {
    return false;
  }
}

/**
 * Keeps the usable branding values: a title (1–80 characters, no control characters), a logo (https URL or a
 * base64 image data URI), colours by role (primary, accent, background, foreground) and appearancePalette by
 * hue (sage, rose, blue, purple, rust, amber, teal), each a #rgb or #rrggbb colour.
 * @param branding - the resolved branding section (its keys were already checked)
 * @returns the usable values and one `[config] left out branding.… ` note per value left out (never the value)
 *
 * Source: spec/platform-service.md § Rules 18
 */
export function sanitiseBranding(
  branding: Record<string, unknown> | undefined,
): { branding: BrandingConfig; notes: string[] } {
  const notes: string[] = [];
  const out: BrandingConfig = {};
  if (branding === undefined) return { branding: out, notes };
  const { title, logo, colours, appearancePalette } = branding;
  if (title !== undefined) {
    const usable = typeof title === 'string' && title.trim() !== '' && title.length <= MAX_BRANDING_TITLE_CHARS &&
      !/[\u0000-\u001f\u007f]/.test(title);
    if (usable) out.title = title.trim();
    else {notes.push(
        `[config] left out branding.title: not text of 1 to ${MAX_BRANDING_TITLE_CHARS} characters on one line.`,
      );}
  }
  if (logo !== undefined) {
    if (typeof logo === 'string' && (isHttpsUrl(logo) || imageDataUri.test(logo))) out.logo = logo;
    else notes.push('[config] left out branding.logo: not an https URL or a base64 image data URI.');
  }
  const roles = colourMap(colours, 'colours', COLOUR_ROLES, notes);
  if (roles !== undefined) out.colours = roles;
  const hues = colourMap(appearancePalette, 'appearancePalette', PALETTE_HUES, notes);
  if (hues !== undefined) out.appearancePalette = hues;
  return { branding: out, notes };
}

function colourMap<K extends string>(
  value: unknown,
  field: string,
  names: readonly K[],
  notes: string[],
): Partial<Record<K, string>> | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    notes.push(`[config] left out branding.${field}: not a mapping of ${names.join(', ')} to colours.`);
    return undefined;
  }
  const kept: Partial<Record<K, string>> = {};
  for (const [name, colour] of Object.entries(value)) {
    if (!(names as readonly string[]).includes(name)) {
      notes.push(`[config] left out branding.${field}.${name}: not one of ${names.join(', ')}.`);
    } else if (typeof colour !== 'string' || !hexColour.test(colour)) {
      notes.push(`[config] left out branding.${field}.${name}: not a #rgb or #rrggbb colour.`);
    } else kept[name as K] = colour.toLowerCase();
  }
  return Object.keys(kept).length > 0 ? kept : undefined;
}
