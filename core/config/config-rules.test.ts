import { describe, expect, it } from 'vitest';
import { resolveConfig } from './config-document.ts';
import { effectiveSkillRegistries, PLATFORM_SKILL_REGISTRY, skillRegistryId } from './config-model.ts';
import { checkConfigUrls, checkPromptCachePrices, checkUniqueIds } from './config-rules.ts';
import { fieldPath } from './config-validation.ts';
import { PLATFORM_ENV_VARIABLES } from './env-variables.ts';
import { configRefusal } from '../testing/config-refusal.ts';

const json = (doc: unknown) => JSON.stringify(doc);
const resolve = (doc: unknown, env: Record<string, string> = {}) =>
  resolveConfig({ env: { ...env, PLATFORM_CONFIG: json(doc) }, production: false });

const refusal = configRefusal;

describe('unknown keys and host settings', () => {
  it('an unknown key fails boot, at any depth', () => {
    expect(refusal(() => resolve({ agents: [] })).message).toBe('PLATFORM_CONFIG: unknown key agents.');
    expect(refusal(() => resolve({ designAgent: { provider: 'p', model: 'm', apiKey: 'k', temperature: 1 } })).message)
      .toBe('PLATFORM_CONFIG: unknown key designAgent.temperature.');
  });

  it.each([
    ['port', 'PORT'],
    ['docdbUri', 'DOCDB_URI'],
    ['masterKey', 'MASTER_KEY'],
    ['signIn', 'PLATFORM_SIGN_IN'],
    ['queueUrl', 'QUEUE_URL'],
    ['objstoreBucket', 'OBJSTORE_BUCKET'],
    ['PLATFORM_SECRET_STORE', 'PLATFORM_SECRET_STORE'],
    ['trusted_proxies', 'PLATFORM_TRUSTED_PROXIES'],
    ['workerHostKey', 'PLATFORM_WORKER_HOST_KEY'],
    ['corsAllowedOrigins', 'CORS_ALLOWED_ORIGINS'],
    ['nodeEnv', 'NODE_ENV'],
  ])('host setting %s fails as an unknown key naming %s', (key, variable) => {
    const error = refusal(() => resolve({ [key]: 'x' }));
    expect(error.message).toBe(
      `PLATFORM_CONFIG: unknown key ${key} (a host setting: set the environment variable ${variable}, not the config).`,
    );
  });

  it('every variable of the table is recognised as a host setting', () => {
    for (const variable of PLATFORM_ENV_VARIABLES) {
      expect(refusal(() => resolve({ [variable]: '1' })).message).toContain(`environment variable ${variable},`);
    }
  });

  it('a document that is not a mapping is refused', () => {
    expect(
      refusal(() =>
        resolveConfig({
          env: { PLATFORM_CONFIG_FILE: '/c' },
          fileText: { path: '/c', text: '- a\n- b\n' },
          production: false,
        })
      ).message,
    ).toMatch(/^PLATFORM_CONFIG_FILE must be a mapping/);
  });

  it('field paths read as written', () => {
    expect(fieldPath('/services/0/token')).toBe('services[0].token');
    expect(fieldPath('/branding/colours/primary')).toBe('branding.colours.primary');
  });
});

describe('entry rules', () => {
  const service = { id: 'svc', endpoint: 'https://svc.example/mcp', token: 't'.repeat(16) };

  it('service tokens are at least 16 characters and endpoints are http(s) URLs (private networks allowed)', () => {
    expect(refusal(() => resolve({ services: [{ ...service, token: 'short' }] })).message).toMatch(
      /^PLATFORM_CONFIG: services\[0\]\.token /,
    );
    expect(refusal(() => resolve({ services: [{ ...service, endpoint: 'svc:3002' }] })).message).toBe(
      'PLATFORM_CONFIG: services[0].endpoint must be an http or https URL.',
    );
    expect(resolve({ services: [{ ...service, endpoint: 'http://10.0.0.7:3002/mcp' }] }).config.services).toHaveLength(
      1,
    );
  });

  it('skill registries are https only; absent key = the platform registry, empty list = none', () => {
    expect(refusal(() => resolve({ skillRegistries: [{ id: 'r', url: 'http://git.example/skills.git' }] })).message)
      .toBe('PLATFORM_CONFIG: skillRegistries[0].url must be an https URL (a registry is cloned over https).');
    expect(refusal(() => resolve({ skillRegistries: [{ id: 'r', url: 'git@git.example:skills.git' }] })).message)
      .toMatch(/skillRegistries\[0\]\.url must be an https URL/);
    expect(
      refusal(() => resolve({ skillRegistries: ['https://a.example/s.git', 'http://git.example/skills'] })).message,
    )
      .toBe('PLATFORM_CONFIG: skillRegistries[1] must be an https URL (a registry is cloned over https).');
    expect(effectiveSkillRegistries(resolve({}).config)).toEqual([PLATFORM_SKILL_REGISTRY]);
    expect(effectiveSkillRegistries(resolve({ skillRegistries: [] }).config)).toEqual([]);
  });

  it('a skill registry given as a URL alone takes an id derived from it; ids stay unique', () => {
    const out = resolve({
      skillRegistries: ['https://github.com/cairn-platform/skills.git', { id: 'team', url: 'https://t.example/s' }],
    });
    expect(out.config.skillRegistries).toEqual([
      { id: 'github-com-cairn-platform-skills', url: 'https://github.com/cairn-platform/skills.git' },
      { id: 'team', url: 'https://t.example/s' },
    ]);
    const long = `https://git.example/${'very-long-group/'.repeat(6)}skills.git`;
    const id = skillRegistryId(long);
    expect(id).toMatch(/^[a-z0-9][a-z0-9-]{0,62}$/);
    expect(id).not.toBe(skillRegistryId(long.replace('skills', 'skillz')));
    expect(
      refusal(() =>
        resolve({ skillRegistries: ['https://t.example/s', { id: 't-example-s', url: 'https://x.example' }] })
      ).message,
    )
      .toBe('PLATFORM_CONFIG: skillRegistries[1].id repeats an earlier entry.');
  });

  it('a collections entry with an unset placeholder is left out with a note', () => {
    const out = resolve({ collections: ['crm', '${{EXTRA_COLLECTION}}'] });
    expect(out.config.collections).toEqual(['crm']);
    expect(out.notes).toEqual([
      '[config] left out collections[1]: field value needs EXTRA_COLLECTION, which is unset or empty.',
    ]);
    expect(resolve({ collections: ['${{EXTRA_COLLECTION}}'] }, { EXTRA_COLLECTION: 'docs' }).config.collections)
      .toEqual(['docs']);
  });

  it('ids are unique within a section', () => {
    expect(() => checkUniqueIds({ services: [service, { ...service }] }, 'L')).toThrow(
      'L: services[1].id repeats an earlier entry.',
    );
    expect(() => checkUniqueIds({ collections: ['a', 'b', 'a'] }, 'L')).toThrow(
      'L: collections[2] repeats an earlier entry.',
    );
    expect(() => checkUniqueIds({ services: [service], oauthApps: [] }, 'L')).not.toThrow();
  });

  it('OAuth apps name their collections and may carry a reach description with an https url', () => {
    const app = {
      id: 'gh',
      collections: ['code'],
      clientId: 'id',
      clientSecret: 'secret',
      reach: { note: 'Repositories you pick', url: 'https://gh.example/apps/x', signsIn: 'owners' },
    };
    expect(resolve({ oauthApps: [app] }).config.oauthApps).toEqual([app]);
    expect(refusal(() => resolve({ oauthApps: [{ ...app, collections: [] }] })).message).toMatch(
      /^PLATFORM_CONFIG: oauthApps\[0\]\.collections /,
    );
    expect(() => checkConfigUrls({ oauthApps: [{ ...app, reach: { url: 'http://x' } }] }, 'L')).toThrow(
      'L: oauthApps[0].reach.url must be an https URL.',
    );
    const withProvider = (provider: Record<string, unknown>) =>
      checkConfigUrls({ oauthApps: [{ ...app, provider }] }, 'L');
    expect(() => withProvider({ issuer: 'https://id.example', scopes: ['repo'] })).not.toThrow();
    expect(() => withProvider({ authorizationUrl: 'https://id.example/a', tokenUrl: 'https://id.example/t' }))
      .not.toThrow();
    expect(() => withProvider({ issuer: 'http://id.example' })).toThrow(
      'L: oauthApps[0].provider.issuer must be an https URL.',
    );
    expect(() => withProvider({ authorizationUrl: 'https://id.example/a' })).toThrow(
      'L: oauthApps[0].provider needs issuer, or authorizationUrl and tokenUrl.',
    );
  });

  it('designAgent.apiBaseUrl is an http(s) URL', () => {
    expect(() =>
      checkConfigUrls({ designAgent: { provider: 'p', model: 'm', apiKey: 'k', apiBaseUrl: 'models' } }, 'L')
    ).toThrow('L: designAgent.apiBaseUrl must be an http or https URL.');
  });

  it('with prompt caching on, designAgent.prices gives cacheRead and cacheWrite', () => {
    const agent = { provider: 'p', model: 'm', apiKey: 'k', prices: { input: 3, output: 15 } };
    expect(() => checkPromptCachePrices({ designAgent: agent }, 'L', true)).toThrow(
      'L: designAgent.prices.cacheRead is required while PLATFORM_PROMPT_CACHE is on.',
    );
    expect(() => checkPromptCachePrices({ designAgent: agent }, 'L', false)).not.toThrow();
    expect(resolve({ designAgent: agent }, { PLATFORM_PROMPT_CACHE: 'off' }).config.designAgent).toEqual(agent);
  });
});

describe('branding', () => {
  it('keeps usable values and leaves out the rest with a note, never refusing and never echoing a value', () => {
    const out = resolve({
      branding: {
        title: 'Acme Agents',
        logo: 'http://insecure.example/logo.png',
        colours: { primary: '#1A2B3C', accent: 'hotpink', glow: '#fff' },
        appearancePalette: { sage: '#abc', chartreuse: '#000' },
      },
    });
    expect(out.config.branding).toEqual({
      title: 'Acme Agents',
      colours: { primary: '#1a2b3c' },
      appearancePalette: { sage: '#abc' },
    });
    expect(out.notes).toEqual([
      '[config] left out branding.logo: not an https URL or a base64 image data URI.',
      '[config] left out branding.colours.accent: not a #rgb or #rrggbb colour.',
      '[config] left out branding.colours.glow: not one of primary, accent, background, foreground.',
      '[config] left out branding.appearancePalette.chartreuse: not one of sage, rose, blue, purple, rust, amber, ' +
      'teal.',
    ]);
    expect(out.notes.join('\n')).not.toContain('insecure.example');
  });

  it('a value of the wrong type, or a branding value with an unset placeholder, is left out too', () => {
    const out = resolve({ branding: { title: 42, logo: 'https://${{LOGO_HOST}}/logo.svg', colours: 'blue' } });
    expect(out.config.branding).toEqual({});
    expect(out.notes).toEqual([
      '[config] left out branding.logo: field value needs LOGO_HOST, which is unset or empty.',
      '[config] left out branding.title: not text of 1 to 80 characters on one line.',
      '[config] left out branding.colours: not a mapping of primary, accent, background, foreground to colours.',
    ]);
  });

  it('an unknown branding key fails like any unknown key', () => {
    expect(refusal(() => resolve({ branding: { favicon: 'x' } })).message).toBe(
      'PLATFORM_CONFIG: unknown key branding.favicon.',
    );
  });
});
