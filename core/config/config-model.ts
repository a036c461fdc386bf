/**
 * Schema of the config document: what the platform offers (design agent, services, collections, skill
 * registries, OAuth apps, branding). Host settings never appear here (they are environment variables).
 *
 * Source: spec/platform-service.md § Config sections named; § Rules 12–18.
 */
import { type Static, Type } from '@sinclair/typebox';
import type { COLOUR_ROLES, PALETTE_HUES } from './branding-names.ts';

const strict = { additionalProperties: false } as const;
const Text = Type.String({ minLength: 1 });
/** Lowercase identifier: letters, digits and dashes (used in variable names and directory names). */
const Id = Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$' });
const Price = Type.Number({ minimum: 0 });

/** The design agent's model. Source: spec/platform-service.md § Config sections named (designAgent) */
export const DesignAgentConfig = Type.Object({
  provider: Text,
  model: Text,
  /** The provider's key (a `${{NAME}}` placeholder); a local OpenAI-compatible server may need none. */
  apiKey: Type.Optional(Text),
  apiBaseUrl: Type.Optional(Text),
  region: Type.Optional(Text),
  /** USD per million tokens. */
  prices: Type.Optional(
    Type.Object(
      { input: Price, output: Price, cacheRead: Type.Optional(Price), cacheWrite: Type.Optional(Price) },
      strict,
    ),
  ),
}, strict);
/**
 * designAgent section.
 *
 * Source: spec/platform-service.md § Config sections named
 */
export type DesignAgentConfig = Static<typeof DesignAgentConfig>;

/** A service: a separate image serving one collection's tools. Source: spec/platform-service.md § Rules 15 */
export const ServiceConfig = Type.Object({
  id: Id,
  endpoint: Text,
  /** At least 16 characters; the same value is set on the service. */
  token: Type.String({ minLength: 16 }),
  collection: Type.Optional(Id),
}, strict);
/**
 * services entry.
 *
 * Source: spec/platform-service.md § Config sections named
 */
export type ServiceConfig = Static<typeof ServiceConfig>;

/** Wire protocols a models provider speaks. Source: docs/decisions.md D7 § Models (in the style of
 * spec/platform-service.md § Config sections named, designAgent) */
export const MODEL_PROVIDER_TYPES = ['openai-compatible', 'anthropic', 'bedrock'] as const;

/**
 * A named model provider: how to reach one endpoint. `apiBaseUrl` is required for openai-compatible (for example
 * `http://127.0.0.1:11434/v1`); `region` is required for bedrock; `apiKey` is written as a ${{NAME}} placeholder.
 */
export const ModelProviderConfig = Type.Object({
  id: Id,
  type: Type.Union(MODEL_PROVIDER_TYPES.map((type) => Type.Literal(type))),
  apiBaseUrl: Type.Optional(Text),
  apiKey: Type.Optional(Text),
  region: Type.Optional(Text),
}, strict);
/**
 * models.providers entry.
 *
 * Source: docs/decisions.md D7 § Models (in the style of spec/platform-service.md § Config sections named, designAgent)
 */
export type ModelProviderConfig = Static<typeof ModelProviderConfig>;

/** A model offered to workflows: the id a workflow or state names, its provider, and its prices. */
export const OfferedModelConfig = Type.Object({
  /** What workflows name, e.g. `claude-sonnet` or `llama3.1:8b`. */
  id: Text,
  /** A models.providers id. */
  provider: Id,
  /** The provider's own model name; default `id`. */
  model: Type.Optional(Text),
  /** USD per million tokens; with prompt caching on, cacheRead and cacheWrite are given. */
  prices: Type.Object({
    input: Price,
    output: Price,
    cacheRead: Type.Optional(Price),
    cacheWrite: Type.Optional(Price),
  }, strict),
}, strict);
/**
 * models.offered entry.
 *
 * Source: docs/decisions.md D7 § Models (in the style of spec/platform-service.md § Config sections named, designAgent)
 */
export type OfferedModelConfig = Static<typeof OfferedModelConfig>;

/**
 * The models offered to workflows. `default` (an offered id) serves a workflow that names no model; default the
 * first offered model.
 */
export const ModelsConfig = Type.Object({
  providers: Type.Array(ModelProviderConfig),
  offered: Type.Array(OfferedModelConfig),
  default: Type.Optional(Text),
}, strict);
/**
 * models section.
 *
 * Source: docs/decisions.md D7 § Models (in the style of spec/platform-service.md § Config sections named, designAgent)
 */
export type ModelsConfig = Static<typeof ModelsConfig>;

/** A public git repository of skills/<slug>/SKILL.md bundles (https only). Source: spec/platform-service.md § Rules 16
 */
export const SkillRegistryConfig = Type.Object({ id: Id, url: Text }, strict);
/**
 * skillRegistries entry.
 *
 * Source: spec/platform-service.md § Config sections named
 */
export type SkillRegistryConfig = Static<typeof SkillRegistryConfig>;
/**
 * A skillRegistries entry as written: an https URL (the spec's form; its id derived from it, {@link skillRegistryId})
 * or `{id, url}`.
 *
 * Source: spec/platform-service.md § Config sections named (skillRegistries: list of https URLs)
 */
export const SkillRegistryEntry = Type.Union([Text, SkillRegistryConfig]);
/** A skillRegistries entry as written. */
export type SkillRegistryEntry = Static<typeof SkillRegistryEntry>;

/**
 * The id of a registry given by URL alone: its host and path in lowercase letters, digits and dashes, without a
 * trailing `.git` (`https://github.com/cairn-platform/skills.git` → `github-com-cairn-platform-skills`); one longer
 * than 63 characters keeps its first 54 and a hash of the whole. It names the registry's directory and its skills
 * (`<id>/<skill>`).
 */
export function skillRegistryId(url: string): string {
  const bare = url.replace(/^[a-z]+:\/\//i, '').replace(/\.git\/?$/i, '').toLowerCase();
  const id = bare.replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '') || 'registry';
  if (id.length <= 63) return id;
  let hash = 0x811c9dc5;
  for (const char of bare) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
  return `${id.slice(0, 54).replace(/-+$/, '')}-${hash.toString(16).padStart(8, '0')}`;
}

/** The registry an entry as written names. */
export function skillRegistryOf(entry: SkillRegistryEntry): SkillRegistryConfig {
  return typeof entry === 'string' ? { id: skillRegistryId(entry), url: entry } : entry;
}

/**
 * Where an OAuth app's provider signs owners in (not shown in the spec; docs/decisions.md D22 § 4): `issuer` (its
 * discovery document is read) or `authorizationUrl` with `tokenUrl` (and `revocationUrl` when it has one), all https;
 * `scopes` asked at Connect (default none).
 */
export const OAuthProviderConfig = Type.Object({
  issuer: Type.Optional(Text),
  authorizationUrl: Type.Optional(Text),
  tokenUrl: Type.Optional(Text),
  revocationUrl: Type.Optional(Text),
  scopes: Type.Optional(Type.Array(Text)),
}, strict);
/** oauthApps[].provider. */
export type OAuthProviderConfig = Static<typeof OAuthProviderConfig>;

/** A collection OAuth app. Source: spec/platform-service.md § Rules 17 */
export const OAuthAppConfig = Type.Object({
  id: Id,
  collections: Type.Array(Id, { minItems: 1 }),
  clientId: Text,
  clientSecret: Text,
  /** Absent, Connect explains that the app names no provider. */
  provider: Type.Optional(OAuthProviderConfig),
  reach: Type.Optional(
    Type.Object({ note: Type.Optional(Text), url: Type.Optional(Text), signsIn: Type.Optional(Text) }, strict),
  ),
}, strict);
/**
 * oauthApps entry.
 *
 * Source: spec/platform-service.md § Config sections named
 */
export type OAuthAppConfig = Static<typeof OAuthAppConfig>;

// The branding's colour names live in a module without imports, which the web app bundles.
export { COLOUR_ROLES, PALETTE_HUES } from './branding-names.ts';

/**
 * branding as written: its keys are fixed, its values are checked one by one and left out with a note when
 * unusable (never a refusal). Source: spec/platform-service.md § Rules 18
 */
export const BrandingDocument = Type.Object({
  title: Type.Optional(Type.Unknown()),
  logo: Type.Optional(Type.Unknown()),
  colours: Type.Optional(Type.Unknown()),
  appearancePalette: Type.Optional(Type.Unknown()),
}, strict);

/**
 * branding after its unusable values are left out.
 *
 * Source: spec/platform-service.md § Config sections named
 */
export interface BrandingConfig {
  title?: string;
  /** https URL or an image data URI. */
  logo?: string;
  colours?: Partial<Record<(typeof COLOUR_ROLES)[number], string>>;
  appearancePalette?: Partial<Record<(typeof PALETTE_HUES)[number], string>>;
}

/**
 * The config document as written (placeholders still in place). Unknown keys fail boot.
 *
 * Source: spec/platform-service.md § Config sections named; § Rules 12–14
 */
export const ConfigDocument = Type.Object({
  designAgent: Type.Optional(DesignAgentConfig),
  models: Type.Optional(ModelsConfig),
  services: Type.Optional(Type.Array(ServiceConfig)),
  collections: Type.Optional(Type.Array(Id)),
  skillRegistries: Type.Optional(Type.Array(SkillRegistryEntry)),
  oauthApps: Type.Optional(Type.Array(OAuthAppConfig)),
  branding: Type.Optional(BrandingDocument),
}, strict);
/**
 * Config document as written.
 *
 * Source: spec/platform-service.md § Config sections named
 */
export type ConfigDocument = Static<typeof ConfigDocument>;

/**
 * The resolved config a process runs with: placeholders replaced, entries with an unset placeholder left out.
 * `skillRegistries` absent means the platform's own public registry; an empty list means none.
 * `collections` absent or empty means no packaged collection is offered.
 *
 * Source: spec/platform-service.md § Config sections named; § Rules 12–18
 */
export interface PlatformConfig {
  designAgent?: DesignAgentConfig;
  /** Absent when the config has no models section (a turn then fails with model_not_configured). */
  models?: ModelsConfig;
  services: ServiceConfig[];
  collections: string[];
  skillRegistries?: SkillRegistryConfig[];
  oauthApps: OAuthAppConfig[];
  branding: BrandingConfig;
}

/**
 * The platform's own public skill registry, followed when the config has no skillRegistries key.
 *
 * Source: spec/platform-service.md § Rules 16
 */
export const PLATFORM_SKILL_REGISTRY: SkillRegistryConfig = {
  id: 'cairn',
  url: 'https://github.com/cairn-platform/skills.git',
};

/**
 * The registries a deployment follows: the config's list, or the platform's own registry when the key is absent.
 *
 * Source: spec/platform-service.md § Rules 16
 */
export function effectiveSkillRegistries(config: Pick<PlatformConfig, 'skillRegistries'>): SkillRegistryConfig[] {
  return config.skillRegistries ?? [PLATFORM_SKILL_REGISTRY];
}
