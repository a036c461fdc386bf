import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../core/config/config-document.ts';
import { isPlatformError } from '../../core/ports/platform-error.ts';
import { configResolveCommand } from './config-command.ts';

const YAML = `# the deployment's offer
designAgent:
  provider: anthropic
  model: claude-x
  apiKey: \${{PLATFORM_DESIGN_AGENT_API_KEY}}
services:
  - id: semantic
    endpoint: http://semantic.internal:3002/mcp
    token: \${{PLATFORM_SERVICE_SEMANTIC_TOKEN}}
branding:
  title: Acme — agents ✓
`;
const files = (entries: Record<string, string>) => (path: string) => entries[path];
const SECRETS = { PLATFORM_DESIGN_AGENT_API_KEY: 'sk-design-secret', PLATFORM_SERVICE_SEMANTIC_TOKEN: 'semantic-token-0123456789' };

describe('cairn config resolve', () => {
  it('prints config.yaml of the app directory as one line of JSON with placeholders kept', () => {
    const out = configResolveCommand({ env: SECRETS, readFile: files({ '/app/config.yaml': YAML }), appDir: '/app', base64: false });
    expect(out.line).not.toContain('\n');
    expect(out.line).toContain('${{PLATFORM_DESIGN_AGENT_API_KEY}}');
    expect(out.line).not.toContain('sk-design-secret');
    expect(JSON.parse(out.line).services[0].id).toBe('semantic');
    expect(out.notes).toEqual([]);
  });

  it('--base64 prints a value a boot reads back as PLATFORM_CONFIG (UTF-8 intact)', () => {
    const out = configResolveCommand({ env: SECRETS, readFile: files({ '/srv/c.yaml': YAML }), appDir: '/app', base64: true, file: '/srv/c.yaml' });
    expect(out.line).toMatch(/^[A-Za-z0-9+/]+=*$/);
    const booted = resolveConfig({ env: { ...SECRETS, PLATFORM_CONFIG: out.line }, production: true });
    expect(booted.config.branding.title).toBe('Acme — agents ✓');
    expect(booted.config.designAgent?.apiKey).toBe('sk-design-secret');
  });

  it('validates as a boot would: [config] notes for unset placeholders, refusal in production without designAgent', () => {
    const read = files({ '/app/config.yaml': YAML });
    const dev = configResolveCommand({ env: {}, readFile: read, appDir: '/app', base64: false });
    expect(dev.notes).toEqual([
      '[config] left out designAgent: field apiKey needs PLATFORM_DESIGN_AGENT_API_KEY, which is unset or empty.',
      '[config] left out service "semantic": field token needs PLATFORM_SERVICE_SEMANTIC_TOKEN, which is unset or empty.',
    ]);
    try {
      configResolveCommand({ env: { NODE_ENV: 'production' }, readFile: read, appDir: '/app', base64: false });
      expect.unreachable();
    } catch (error) {
      expect(isPlatformError(error, 'invalid_config')).toBe(true);
      expect((error as Error).message).toMatch(/^PLATFORM_DESIGN_AGENT_API_KEY /);
    }
  });

  it('follows the boot precedence: PLATFORM_CONFIG wins with one warning naming the shadowed file', () => {
    const out = configResolveCommand({
      env: { PLATFORM_CONFIG: '{"collections":["crm"]}', PLATFORM_CONFIG_FILE: '/etc/cairn/config.yaml' },
      readFile: files({ '/etc/cairn/config.yaml': YAML, '/app/config.yaml': YAML }), appDir: '/app', base64: false,
    });
    expect(out.line).toBe('{"collections":["crm"]}');
    expect(out.notes).toEqual([expect.stringContaining('/etc/cairn/config.yaml')]);
  });

  it('refuses a missing PLATFORM_CONFIG_FILE or --file, an unknown key, and prints the empty document when nothing is named', () => {
    expect(() => configResolveCommand({ env: { PLATFORM_CONFIG_FILE: '/missing.yaml' }, readFile: files({}), appDir: '/app', base64: false })).toThrow(/^PLATFORM_CONFIG_FILE names a file that does not exist/);
    expect(() => configResolveCommand({ env: {}, readFile: files({}), appDir: '/app', base64: false, file: '/missing.yaml' })).toThrow(/^--file names a file/);
    expect(() => configResolveCommand({ env: {}, readFile: files({ '/app/config.yaml': 'port: 8080\n' }), appDir: '/app', base64: false })).toThrow('config.yaml (app directory): unknown key port (a host setting: set the environment variable PORT, not the config).');
    expect(configResolveCommand({ env: {}, readFile: files({}), appDir: '/app', base64: false })).toEqual({ line: '{}', notes: [] });
  });
});
