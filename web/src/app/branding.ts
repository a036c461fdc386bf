/**
 * Branding from GET /api/branding: the title (page title and header), the logo, colours as CSS custom
 * properties (`--brand-<name>`), and whether the powered-by note shows (when a title or logo is set).
 *
 * Source: spec/platform-service.md § Endpoints (/api/branding), § Rules 18.
 */
import { useQuery } from '@tanstack/react-query';
import { COLOUR_ROLES, PALETTE_HUES, type BrandingView } from '../../../core/config/branding-view.ts';
import { api } from '../api/client.ts';


/** The branding, applied to the document once loaded; `{}` until then or when it cannot be read. */
export function useBranding(): BrandingView {
  const { data } = useQuery({
    queryKey: ['branding'],
    queryFn: async () => {
      const view = await api<BrandingView>('/api/branding');
      applyBranding(view, document);
      return view;
    },
    staleTime: Infinity,
    retry: 1,
  });
  return data ?? {};
}

/**
 * Sets the title and the colours on `doc`: each colour role as `--brand-<role>` and each palette hue as
 * `--hue-<hue>` (web/src/styles.css reads them). The API already left out values it cannot use.
 */
export function applyBranding(view: BrandingView, doc: Document): void {
  if (view.title) doc.title = view.title;
  const style = doc.documentElement.style;
  for (const role of COLOUR_ROLES) if (view.colors?.[role]) style.setProperty(`--brand-${role}`, view.colors[role]);
  for (const hue of PALETTE_HUES) if (view.appearancePalette?.[hue]) style.setProperty(`--hue-${hue}`, view.appearancePalette[hue]);
}
