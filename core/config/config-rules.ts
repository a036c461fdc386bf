/**
 * Cross-field rules of the resolved config document, one small function per rule. Messages name the
 * source and the field, never a value.
 *
 * Source: spec/platform-service.md § Config sections named; § Rules 13–17.
 */
import { PlatformError } from '../ports/platform-error.ts';
import { type ConfigDocument, skillRegistryOf } from './config-model.ts';

function isUrl(text: string, schemes: string[]): boolean {
  try {
    const parsed = new URL(text);
    return schemes.includes(parsed.protocol) && parsed.hostname !== '';
  } catch {
    return false;
  }
}

function refuse(label: string, rule: string): PlatformError {
  return new PlatformError('invalid_config', `${label}: ${rule}.`);
}

/**
 * URLs: service endpoints and designAgent.apiBaseUrl are http(s) URLs (a service may be on a private network);
 * skill registries and an OAuth app's reach.url are https only.
 * @throws PlatformError `invalid_config` naming the source and field
 *
 * Source: spec/platform-service.md § Rules 15–17
 */
export function checkConfigUrls(config: ConfigDocument, label: string): void {
  if (config.designAgent?.apiBaseUrl !== undefined && !isUrl(config.designAgent.apiBaseUrl, ['http:', 'https:'])) {
    throw refuse(label, 'designAgent.apiBaseUrl must be an http or https URL');
  }
  config.services?.forEach((service, index) => {
    if (!isUrl(service.endpoint, ['http:', 'https:'])) {
      throw refuse(label, `services[${index}].endpoint must be an http or https URL`);
    }
  });
  config.skillRegistries?.forEach((entry, index) => {
    const [url, field] = typeof entry === 'string' ? [entry, ''] : [entry.url, '.url'];
    if (!isUrl(url, ['https:'])) {
      throw refuse(label, `skillRegistries[${index}]${field} must be an https URL (a registry is cloned over https)`);
    }
  });
  config.oauthApps?.forEach((app, index) => {
    if (app.reach?.url !== undefined && !isUrl(app.reach.url, ['https:'])) {
      throw refuse(label, `oauthApps[${index}].reach.url must be an https URL`);
    }
    const provider = app.provider;
    for (const field of ['issuer', 'authorizationUrl', 'tokenUrl', 'revocationUrl'] as const) {
      const value = provider?.[field];
      if (value !== undefined && !isUrl(value, ['https:'])) {
        throw refuse(label, `oauthApps[${index}].provider.${field} must be an https URL`);
      }
    }
    if (provider && provider.issuer === undefined && (!provider.authorizationUrl || !provider.tokenUrl)) {
      throw refuse(label, `oauthApps[${index}].provider needs issuer, or authorizationUrl and tokenUrl`);
    }
  });
}

/**
 * Identifiers are unique within services, skillRegistries and oauthApps, and collections names each collection once.
 * @throws PlatformError `invalid_config` naming the source and the repeated entry's field
 *
 * Source: spec/platform-service.md § Config sections named (entries are named by id)
 */
export function checkUniqueIds(config: ConfigDocument, label: string): void {
  const lists: Array<[string, string[]]> = [
    ['services', (config.services ?? []).map((s) => s.id)],
    ['skillRegistries', (config.skillRegistries ?? []).map((r) => skillRegistryOf(r).id)],
    ['oauthApps', (config.oauthApps ?? []).map((a) => a.id)],
    ['collections', config.collections ?? []],
  ];
  for (const [section, ids] of lists) {
    const repeated = ids.findIndex((id, index) => ids.indexOf(id) !== index);
    if (repeated >= 0) {
      throw refuse(label, `${section}[${repeated}]${section === 'collections' ? '' : '.id'} repeats an earlier entry`);
    }
  }
}

/**
 * With prompt caching on (PLATFORM_PROMPT_CACHE), designAgent.prices gives cacheRead and cacheWrite.
 * @param promptCache - PLATFORM_PROMPT_CACHE (default on)
 * @throws PlatformError `invalid_config` naming the source and the missing price
 *
 * Source: spec/platform-service.md § Config sections named (designAgent: with prompt caching on, cacheRead and
 * cacheWrite are given)
 */
export function checkPromptCachePrices(config: ConfigDocument, label: string, promptCache: boolean): void {
  const prices = config.designAgent?.prices;
  if (!promptCache || prices === undefined) return;
  for (const field of ['cacheRead', 'cacheWrite'] as const) {
    if (prices[field] === undefined) {
      throw refuse(label, `designAgent.prices.${field} is required while PLATFORM_PROMPT_CACHE is on`);
    }
  }
}
