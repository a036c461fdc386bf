/**
 * The branding's colour names, in a module of their own without imports: the config model, the API and the
 * web app (which must not bundle TypeBox for two lists) all read them.
 *
 * Source: spec/platform-service.md § Config sections named (branding)
 */
/** The seven hues appearancePalette retunes. Source: spec/platform-service.md § Config sections named (branding) */
export const PALETTE_HUES = ['sage', 'rose', 'blue', 'purple', 'rust', 'amber', 'teal'] as const;
/**
 * Colour roles branding.colours may set.
 *
 * Source: spec/platform-service.md § Config sections named
 */
export const COLOUR_ROLES = ['primary', 'accent', 'background', 'foreground'] as const;
