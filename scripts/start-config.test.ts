/**
 * The config scripts/start gives the platform (scripts/start-config.ts), checked by the platform's own
 * config resolution: the models section from CAIRN_MODEL_*, the API key only as a placeholder, the
 * semantic service entry left out with a [config] line until the demo token exists, and a config of the
 * user's left alone.
 * Source: docs/decisions.md D7 § Models (scripts/start paragraph).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../core/config/config-document.ts';
import { buildStartConfig, modelsFromEnv } from './start-config.ts';
import { designAgentFromEnv } from './start-design-agent.ts';

const appDir = mkdtempSync(join(tmpdir(), 'cairn-start-config-'));
afterAll(() => rmSync(appDir, { recursive: true, force: true }));
const where = { appDir, semanticMcpPort: 3002 };
const KEY = 'sk-test-do-not-print-0123456789';

describe('buildStartConfig', () => {
  it('builds an openai-compatible provider from CAIRN_MODEL_BASE_URL, offered at zero prices, with the key as a placeholder', () => {
    const start = buildStartConfig({ CAIRN_MODEL_BASE_URL: 'http://127.0.0.1:11434/v1', CAIRN_MODEL: 'llama3.1:8b', CAIRN_MODEL_API_KEY: KEY }, where);
    expect(start.env.PLATFORM_CONFIG).not.toContain(KEY);
    const { config, notes } = resolveConfig({ env: { ...start.env, CAIRN_MODEL_API_KEY: KEY, CAIRN_DEMO_SEMANTIC_TOKEN: 'cairn_mcp_0123456789abcdef' }, production: false });
    expect(notes).toEqual([]);
    expect(config.models).toEqual({
      providers: [{ id: 'openai-compatible', type: 'openai-compatible', apiBaseUrl: 'http://127.0.0.1:11434/v1', apiKey: KEY }],
      offered: [{ id: 'llama3.1:8b', provider: 'openai-compatible', prices: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } }],
      default: 'llama3.1:8b',
    });
    expect(config.services).toEqual([{ id: 'semantic', endpoint: 'http://127.0.0.1:3002/mcp/flights/mcp', token: 'cairn_mcp_0123456789abcdef' }]);
    expect(start.modelLine).toBe('Model:                        llama3.1:8b (openai-compatible at http://127.0.0.1:11434/v1, key from CAIRN_MODEL_API_KEY)');
  });

  it('leaves the semantic service out with one [config] line while the demo token is unset', () => {
    const start = buildStartConfig({}, where);
    const { config, notes } = resolveConfig({ env: start.env, production: false });
    expect(config.services).toEqual([]);
    expect(config.models).toBeUndefined();
    expect(notes).toEqual(['[config] left out service "semantic": field token needs CAIRN_DEMO_SEMANTIC_TOKEN, which is unset or empty.']);
    expect(start.modelLine).toMatch(/^Model: +none configured, so a turn fails at once saying so: set CAIRN_MODEL_BASE_URL and CAIRN_MODEL/);
  });

  it('takes prices from CAIRN_MODEL_PRICES, anthropic without a base URL, bedrock with its region', () => {
    expect(modelsFromEnv({ CAIRN_MODEL_PROVIDER: 'anthropic', CAIRN_MODEL: 'claude-sonnet-4-5', CAIRN_MODEL_API_KEY: KEY, CAIRN_MODEL_PRICES: '3,15,0.3,3.75' })).toEqual({
      providers: [{ id: 'anthropic', type: 'anthropic', apiKey: '${{CAIRN_MODEL_API_KEY}}' }],
      offered: [{ id: 'claude-sonnet-4-5', provider: 'anthropic', prices: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } }],
      default: 'claude-sonnet-4-5',
    });
    expect(modelsFromEnv({ CAIRN_MODEL_PROVIDER: 'bedrock', CAIRN_MODEL: 'anthropic.claude-3-haiku', AWS_REGION: 'eu-west-1' })!.providers).toEqual([{ id: 'bedrock', type: 'bedrock', region: 'eu-west-1' }]);
  });

  it('refuses a missing or malformed variable, naming it and never the key', () => {
    const refusal = (env: Record<string, string>) => { try { modelsFromEnv(env); } catch (error) { return (error as Error).message; } return 'no refusal'; };
    expect(refusal({ CAIRN_MODEL_BASE_URL: 'http://127.0.0.1:1/v1', CAIRN_MODEL_API_KEY: KEY })).toMatch(/^CAIRN_MODEL is not set/);
    expect(refusal({ CAIRN_MODEL: 'm', CAIRN_MODEL_API_KEY: KEY })).toMatch(/^CAIRN_MODEL_PROVIDER is not set and neither is CAIRN_MODEL_BASE_URL/);
    expect(refusal({ CAIRN_MODEL: 'm', CAIRN_MODEL_PROVIDER: 'openai' })).toBe('CAIRN_MODEL_PROVIDER must be one of openai-compatible, anthropic, bedrock.');
    expect(refusal({ CAIRN_MODEL: 'm', CAIRN_MODEL_PROVIDER: 'openai-compatible' })).toMatch(/^CAIRN_MODEL_BASE_URL is required/);
    expect(refusal({ CAIRN_MODEL: 'm', CAIRN_MODEL_BASE_URL: 'localhost:11434' })).toMatch(/^CAIRN_MODEL_BASE_URL must be an http or https URL/);
    expect(refusal({ CAIRN_MODEL: 'm', CAIRN_MODEL_PROVIDER: 'bedrock' })).toMatch(/^CAIRN_MODEL_REGION \(or AWS_REGION\) is required/);
    expect(refusal({ CAIRN_MODEL: 'm', CAIRN_MODEL_BASE_URL: 'http://h/v1', CAIRN_MODEL_PRICES: '1,2' })).toMatch(/^CAIRN_MODEL_PRICES must be four numbers/);
  });

  it('leaves a config.yaml of the user\'s alone and says the CAIRN_MODEL_* variables were not applied', () => {
    writeFileSync(join(appDir, 'config.yaml'), 'collections: []\n');
    try {
      const start = buildStartConfig({ CAIRN_MODEL_BASE_URL: 'http://127.0.0.1:11434/v1', CAIRN_MODEL: 'm' }, where);
      expect(start.env).toEqual({});
      expect(start.offersSemanticService).toBe(false);
      expect(start.lines[0]).toBe(`your config (${join(appDir, 'config.yaml')}) wins, so the CAIRN_MODEL_* variables were not applied: add a models section to it instead (README § Configure)`);
      expect(buildStartConfig({ PLATFORM_CONFIG: '{}' }, where).lines).toHaveLength(1);
    } finally {
      rmSync(join(appDir, 'config.yaml'));
    }
  });
});

describe('designAgentFromEnv', () => {
  it('uses the workflow model\'s provider by default, CAIRN_DESIGN_MODEL naming a model of its own', () => {
    const env = { CAIRN_MODEL_BASE_URL: 'http://127.0.0.1:11434/v1', CAIRN_MODEL: 'llama3.1:8b', CAIRN_MODEL_API_KEY: KEY };
    expect(designAgentFromEnv(env)).toEqual({
      provider: 'openai-compatible', model: 'llama3.1:8b', apiBaseUrl: 'http://127.0.0.1:11434/v1',
      apiKey: '${{CAIRN_MODEL_API_KEY}}', prices: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    });
    expect(designAgentFromEnv({ ...env, CAIRN_DESIGN_MODEL: 'qwen2.5-coder' })?.model).toBe('qwen2.5-coder');
    // Through the platform's own resolution: the key from its variable, never in the config text.
    const start = buildStartConfig({ ...env, CAIRN_DESIGN_MODEL: 'qwen2.5-coder' }, where);
    expect(start.env.PLATFORM_CONFIG).not.toContain(KEY);
    const { config } = resolveConfig({ env: { ...start.env, CAIRN_MODEL_API_KEY: KEY }, production: true });
    expect(config.designAgent).toMatchObject({ model: 'qwen2.5-coder', apiKey: KEY });
    expect(start.designLine).toBe('Design agent:                 qwen2.5-coder (openai-compatible at http://127.0.0.1:11434/v1)');
  });

  it('takes a provider of its own from CAIRN_DESIGN_MODEL_*, and is absent with no model variable', () => {
    const own = designAgentFromEnv({
      CAIRN_MODEL_BASE_URL: 'http://127.0.0.1:11434/v1', CAIRN_MODEL: 'llama3.1:8b',
      CAIRN_DESIGN_MODEL_PROVIDER: 'anthropic', CAIRN_DESIGN_MODEL_API_KEY: KEY, CAIRN_DESIGN_MODEL: 'claude-sonnet-4-5',
      CAIRN_DESIGN_MODEL_PRICES: '3,15,0.3,3.75',
    });
    expect(own).toEqual({
      provider: 'anthropic', model: 'claude-sonnet-4-5', apiKey: '${{CAIRN_DESIGN_MODEL_API_KEY}}',
      prices: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    });
    expect(designAgentFromEnv({})).toBeUndefined();
    expect(buildStartConfig({}, where).designLine).toMatch(/^Design agent: +none configured \(the Design tab says so\)/);
  });

  it('refuses a missing or malformed variable, naming it and never the key', () => {
    const refusal = (env: Record<string, string>) => {
      try {
        designAgentFromEnv(env);
        return 'none';
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(refusal({ CAIRN_DESIGN_MODEL_API_KEY: KEY, CAIRN_DESIGN_MODEL_PROVIDER: 'anthropic' })).toMatch(/^CAIRN_DESIGN_MODEL is not set/);
    expect(refusal({ CAIRN_DESIGN_MODEL: 'm', CAIRN_DESIGN_MODEL_BASE_URL: 'ftp://x' })).toMatch(/^CAIRN_DESIGN_MODEL_BASE_URL must be/);
    expect(refusal({ CAIRN_DESIGN_MODEL: 'm', CAIRN_DESIGN_MODEL_PRICES: '1,2' })).toMatch(/^CAIRN_DESIGN_MODEL_PROVIDER is not set/);
    const url = 'http://127.0.0.1:9/v1';
    expect(refusal({ CAIRN_DESIGN_MODEL: 'm', CAIRN_DESIGN_MODEL_BASE_URL: url, CAIRN_DESIGN_MODEL_PRICES: '1,2' }))
      .toMatch(/^CAIRN_DESIGN_MODEL_PRICES must be/);
    expect(refusal({ CAIRN_DESIGN_MODEL: 'm' })).toMatch(/^CAIRN_MODEL_PROVIDER is not set and neither is CAIRN_MODEL_BASE_URL/);
    for (const env of [{ CAIRN_DESIGN_MODEL_API_KEY: KEY, CAIRN_DESIGN_MODEL_PROVIDER: 'x', CAIRN_DESIGN_MODEL: 'm' }]) {
      expect(refusal(env)).not.toContain(KEY);
    }
  });
});
