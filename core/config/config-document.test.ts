import { describe, expect, it } from 'vitest';
import { resolveConfig } from './config-document.ts';
import { requireConfigFile } from './config-source.ts';
import { configRefusal } from '../testing/config-refusal.ts';

const TOKEN = 'service-token-0123456789';
const AGENT = { provider: 'anthropic', model: 'claude-x', apiKey: '${{PLATFORM_DESIGN_AGENT_API_KEY}}' };
const ENV = { PLATFORM_DESIGN_AGENT_API_KEY: 'sk-design-secret', PLATFORM_SERVICE_SEMANTIC_TOKEN: TOKEN };
const json = (doc: unknown) => JSON.stringify(doc);
const file = (text: string) => ({ path: '/etc/cairn/config.yaml', text });
const appDir = (text: string) => ({ path: '/app/config.yaml', text });

const refusal = configRefusal;

describe('precedence and the shadow warning', () => {
  it('PLATFORM_CONFIG wins over the named file, with exactly one warning naming the shadowed file', () => {
    const out = resolveConfig({
      env: { PLATFORM_CONFIG: json({ collections: ['inline'] }), PLATFORM_CONFIG_FILE: '/etc/cairn/config.yaml' },
      fileText: file('collections: [from-file]'),
      appDirConfig: appDir('collections: [from-app-dir]'),
      production: false,
    });
    expect(out.config.collections).toEqual(['inline']);
    expect(out.warnings).toHaveLength(1);
    expect(out.warnings[0]).toContain('/etc/cairn/config.yaml');
  });

  it('PLATFORM_CONFIG shadowing config.yaml in the app directory names that file', () => {
    const out = resolveConfig({
      env: { PLATFORM_CONFIG: json({}) },
      appDirConfig: appDir('collections: [a]'),
      production: false,
    });
    expect(out.warnings).toEqual([expect.stringContaining('/app/config.yaml')]);
  });

  it('PLATFORM_CONFIG_FILE wins over config.yaml in the app directory, without a warning', () => {
    const out = resolveConfig({
      env: { PLATFORM_CONFIG_FILE: '/etc/cairn/config.yaml' },
      fileText: file('collections: [from-file]'),
      appDirConfig: appDir('collections: [x]'),
      production: false,
    });
    expect(out.config.collections).toEqual(['from-file']);
    expect(out.warnings).toEqual([]);
  });

  it('config.yaml in the app directory is read when nothing else is named; otherwise the empty document', () => {
    expect(resolveConfig({ env: {}, appDirConfig: appDir('collections: [x]'), production: false }).config.collections)
      .toEqual(['x']);
    expect(resolveConfig({ env: {}, production: false })).toEqual({
      config: { services: [], collections: [], oauthApps: [], branding: {} },
      notes: [],
      warnings: [],
    });
  });

  it('a named file that does not exist refuses the start, naming PLATFORM_CONFIG_FILE and not the path', () => {
    const error = refusal(() =>
      resolveConfig({ env: { PLATFORM_CONFIG_FILE: '/nope/config.yaml' }, production: false })
    );
    expect(error.message).toMatch(/^PLATFORM_CONFIG_FILE /);
    expect(error.message).not.toContain('/nope/config.yaml');
    expect(() => requireConfigFile(true)).not.toThrow();
    expect(refusal(() => requireConfigFile(false)).message).toMatch(/^PLATFORM_CONFIG_FILE /);
  });

  it('PLATFORM_CONFIG may be base64 of the JSON line', () => {
    const text = json({ collections: ['crm'], designAgent: AGENT });
    const b64 = btoa(String.fromCharCode(...new TextEncoder().encode(text)));
    const out = resolveConfig({ env: { ...ENV, PLATFORM_CONFIG: b64 }, production: true });
    expect(out.config.collections).toEqual(['crm']);
    expect(out.config.designAgent?.apiKey).toBe('sk-design-secret');
  });

  it('PLATFORM_CONFIG that is neither JSON nor base64 of it is refused without echoing it', () => {
    for (const bad of ['{"a": secret-text', 'not json at all', btoa('secret-plain')]) {
      const error = refusal(() => resolveConfig({ env: { PLATFORM_CONFIG: bad }, production: false }));
      expect(error.message).toMatch(/^PLATFORM_CONFIG /);
      expect(error.message).not.toContain('secret');
    }
  });

  it('invalid YAML is refused naming the source, the error code and line, never the text', () => {
    const error = refusal(() =>
      resolveConfig({
        env: { PLATFORM_CONFIG_FILE: '/etc/c.yaml' },
        fileText: file('services:\n  - id: a\n    id: hush-secret\n'),
        production: false,
      })
    );
    expect(error.message).toMatch(/^PLATFORM_CONFIG_FILE is not valid YAML: DUPLICATE_KEY at line 3/);
    expect(error.message).not.toContain('hush-secret');
  });
});

describe('placeholders', () => {
  const doc = {
    designAgent: AGENT,
    services: [
      {
        id: 'semantic',
        endpoint: 'http://semantic.internal:3002/mcp',
        token: '${{PLATFORM_SERVICE_SEMANTIC_TOKEN}}',
        collection: 'semantic',
      },
      { id: 'crm', endpoint: 'https://crm.example/mcp', token: '${{ PLATFORM_SERVICE_CRM_TOKEN }}' },
    ],
    oauthApps: [{
      id: 'gh',
      collections: ['code'],
      clientId: '${{PLATFORM_OAUTH_APP_GH_CLIENT_ID}}',
      clientSecret: '${{PLATFORM_OAUTH_APP_GH_CLIENT_SECRET}}',
    }],
    skillRegistries: [{ id: 'team', url: 'https://${{REGISTRY_HOST}}/skills.git' }],
  };

  it('resolves set placeholders in string values', () => {
    const out = resolveConfig({
      env: {
        ...ENV,
        PLATFORM_SERVICE_CRM_TOKEN: 'crm-token-0123456789',
        PLATFORM_OAUTH_APP_GH_CLIENT_ID: 'id',
        PLATFORM_OAUTH_APP_GH_CLIENT_SECRET: 's',
        REGISTRY_HOST: 'git.example',
        PLATFORM_CONFIG: json(doc),
      },
      production: true,
    });
    expect(out.notes).toEqual([]);
    expect(out.config.services.map((s) => s.token)).toEqual([TOKEN, 'crm-token-0123456789']);
    expect(out.config.skillRegistries).toEqual([{ id: 'team', url: 'https://git.example/skills.git' }]);
  });

  it(
    'an unset or empty placeholder leaves out its entry with one [config] ' + 'note naming entry, field and variable',
    () => {
      const out = resolveConfig({
        env: { ...ENV, PLATFORM_SERVICE_CRM_TOKEN: ' ', PLATFORM_CONFIG: json(doc) },
        production: false,
      });
      expect(out.config.services.map((s) => s.id)).toEqual(['semantic']);
      expect(out.config.oauthApps).toEqual([]);
      expect(out.config.skillRegistries).toEqual([]);
      expect(out.notes).toEqual([
        '[config] left out service "crm": field token needs PLATFORM_SERVICE_CRM_TOKEN, which is unset or empty.',
        '[config] left out OAuth app "gh": field clientId needs PLATFORM_OAUTH_APP_GH_CLIENT_ID; field clientSecret ' +
        'needs PLATFORM_OAUTH_APP_GH_CLIENT_SECRET, which are unset or empty.',
        '[config] left out skill registry "team": field url needs REGISTRY_HOST, which is unset or empty.',
      ]);
    },
  );

  it('an unset placeholder in designAgent leaves out the whole section outside production', () => {
    const out = resolveConfig({ env: { PLATFORM_CONFIG: json({ designAgent: AGENT }) }, production: false });
    expect(out.config.designAgent).toBeUndefined();
    expect(out.notes).toEqual([
      '[config] left out designAgent: field apiKey needs PLATFORM_DESIGN_AGENT_API_KEY, which is unset or empty.',
    ]);
  });

  it('in production, designAgent left out by an unset placeholder refuses the start naming the variable', () => {
    const error = refusal(() =>
      resolveConfig({ env: { PLATFORM_CONFIG: json({ designAgent: AGENT }) }, production: true })
    );
    expect(error.message.split('\n')[0]).toMatch(
      /^PLATFORM_DESIGN_AGENT_API_KEY is unset or empty, which leaves out designAgent/,
    );
  });

  it('in production, a config without designAgent refuses the start', () => {
    expect(refusal(() => resolveConfig({ env: {}, production: true })).message).toMatch(
      /^config: designAgent is required when NODE_ENV is production/,
    );
  });

  it('a malformed placeholder is refused naming the field', () => {
    const error = refusal(() =>
      resolveConfig({
        env: { PLATFORM_CONFIG: json({ services: [{ id: 'a', endpoint: 'https://a', token: '${{bad-name}}' }] }) },
        production: false,
      })
    );
    expect(error.message).toMatch(/^PLATFORM_CONFIG: services\[0\]\.token holds a malformed placeholder/);
  });

  it('a resolved value is still validated, without echoing it', () => {
    const error = refusal(() =>
      resolveConfig({
        env: {
          SHORT: 'short-secret',
          PLATFORM_CONFIG: json({ services: [{ id: 'a', endpoint: 'https://a.example', token: '${{SHORT}}' }] }),
        },
        production: false,
      })
    );
    expect(error.message).toMatch(/^PLATFORM_CONFIG: services\[0\]\.token /);
    expect(error.message).not.toContain('short-secret');
  });

  it('a left-out entry is still checked for unknown keys', () => {
    const error = refusal(() =>
      resolveConfig({
        env: {
          PLATFORM_CONFIG: json({ services: [{ id: 'a', endpoint: 'https://a', token: '${{UNSET}}', colour: 'x' }] }),
        },
        production: false,
      })
    );
    expect(error.message).toBe('PLATFORM_CONFIG: unknown key services[0].colour.');
  });
});
