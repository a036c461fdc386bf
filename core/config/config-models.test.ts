import { describe, expect, it } from 'vitest';
import { resolveConfig } from './config-document.ts';
import { configRefusal as refusal } from '../testing/config-refusal.ts';

const json = (doc: unknown) => JSON.stringify(doc);
const resolve = (doc: unknown, env: Record<string, string> = {}) =>
  resolveConfig({ env: { ...env, PLATFORM_CONFIG: json(doc) }, production: false });
const PRICES = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };
const MODELS = {
  providers: [
    {
      id: 'local',
      type: 'openai-compatible',
      apiBaseUrl: 'http://127.0.0.1:11434/v1',
      apiKey: '${{CAIRN_MODEL_API_KEY}}',
    },
    { id: 'claude', type: 'anthropic', apiKey: '${{ANTHROPIC_KEY}}' },
    { id: 'aws', type: 'bedrock', region: 'eu-west-1' },
  ],
  offered: [
    { id: 'llama', provider: 'local', model: 'llama3.1:8b', prices: PRICES },
    { id: 'sonnet', provider: 'claude', model: 'claude-sonnet-4-5', prices: PRICES },
    { id: 'nova', provider: 'aws', prices: PRICES },
  ],
  default: 'sonnet',
};

describe('the models section', () => {
  it('parses, with placeholders resolved', () => {
    const out = resolve({ models: MODELS }, { CAIRN_MODEL_API_KEY: 'sk-local', ANTHROPIC_KEY: 'sk-ant' });
    expect(out.notes).toEqual([]);
    expect(out.config.models?.providers.map((p) => [p.id, p.apiKey])).toEqual([['local', 'sk-local'], [
      'claude',
      'sk-ant',
    ], ['aws', undefined]]);
    expect(out.config.models?.offered.map((m) => m.id)).toEqual(['llama', 'sonnet', 'nova']);
    expect(out.config.models?.default).toBe('sonnet');
    expect(resolve({}).config.models).toBeUndefined();
  });

  it('a provider with an unset placeholder is left out, and so are the models it serves, each with a note', () => {
    const out = resolve({ models: MODELS }, { CAIRN_MODEL_API_KEY: 'sk-local' });
    expect(out.config.models?.providers.map((p) => p.id)).toEqual(['local', 'aws']);
    expect(out.config.models?.offered.map((m) => m.id)).toEqual(['llama', 'nova']);
    expect(out.notes).toEqual([
      '[config] left out model provider "claude": field apiKey needs ANTHROPIC_KEY, which is unset or empty.',
      '[config] left out model "sonnet": its provider "claude" is left out.',
    ]);
    expect(out.notes.join('\n')).not.toContain('sk-local');
  });

  it('unknown keys are refused naming the key, at any depth', () => {
    expect(refusal(() => resolve({ models: { ...MODELS, temperature: 1 } })).message).toBe(
      'PLATFORM_CONFIG: unknown key models.temperature.',
    );
    const provider = { ...MODELS.providers[2], organisation: 'x' };
    expect(refusal(() => resolve({ models: { ...MODELS, providers: [provider] } })).message).toBe(
      'PLATFORM_CONFIG: unknown key models.providers[0].organisation.',
    );
    const model = { ...MODELS.offered[2], prices: { ...PRICES, reasoning: 1 } };
    expect(refusal(() => resolve({ models: { ...MODELS, offered: [model] } })).message).toBe(
      'PLATFORM_CONFIG: unknown key models.offered[0].prices.reasoning.',
    );
  });

  it('bad prices are refused naming the price', () => {
    const withPrices = (prices: unknown) => ({
      models: { providers: [MODELS.providers[2]], offered: [{ id: 'nova', provider: 'aws', prices }] },
    });
    expect(refusal(() => resolve(withPrices({ ...PRICES, output: -1 }))).message).toMatch(
      new RegExp(
        String.raw`^PLATFORM_CONFIG: models\.offered\[0\]\.prices\.output is not accepted: ` +
          String.raw`expected number to be greater or equal to 0`,
      ),
    );
    expect(refusal(() => resolve(withPrices({ ...PRICES, input: 'three' }))).message).toMatch(
      /^PLATFORM_CONFIG: models\.offered\[0\]\.prices\.input is not accepted/,
    );
    expect(refusal(() => resolve(withPrices({ output: 15 }))).message).toBe(
      'PLATFORM_CONFIG: models.offered[0].prices.input is required.',
    );
    expect(
      refusal(() =>
        resolve({ models: { providers: [MODELS.providers[2]], offered: [{ id: 'nova', provider: 'aws' }] } })
      ).message,
    ).toBe('PLATFORM_CONFIG: models.offered[0].prices is required.');
  });

  it('with prompt caching on, cacheRead and cacheWrite are given; with it off they may be absent', () => {
    const doc = {
      models: {
        providers: [MODELS.providers[2]],
        offered: [{ id: 'nova', provider: 'aws', prices: { input: 1, output: 2 } }],
      },
    };
    expect(refusal(() => resolve(doc)).message).toBe(
      'PLATFORM_CONFIG: models.offered[0].prices.cacheRead is required while PLATFORM_PROMPT_CACHE is on.',
    );
    expect(resolve(doc, { PLATFORM_PROMPT_CACHE: 'off' }).config.models?.offered).toHaveLength(1);
  });

  it('cross-field rules name the field', () => {
    const one = (provider: unknown, offered: unknown[] = [], rest: Record<string, unknown> = {}) => ({
      models: { providers: [provider], offered, ...rest },
    });
    expect(refusal(() => resolve(one({ id: 'p', type: 'openai-compatible' }))).message).toBe(
      'PLATFORM_CONFIG: models.providers[0].apiBaseUrl is required for type openai-compatible.',
    );
    expect(refusal(() => resolve(one({ id: 'p', type: 'openai-compatible', apiBaseUrl: 'localhost:11434' }))).message)
      .toBe('PLATFORM_CONFIG: models.providers[0].apiBaseUrl must be an http or https URL.');
    expect(refusal(() => resolve(one({ id: 'p', type: 'bedrock' }))).message).toBe(
      'PLATFORM_CONFIG: models.providers[0].region is required for type bedrock.',
    );
    expect(refusal(() => resolve(one({ id: 'p', type: 'vertex' }))).message).toMatch(
      /^PLATFORM_CONFIG: models\.providers\[0\]\.type is not accepted/,
    );
    expect(refusal(() => resolve(one(MODELS.providers[2], [{ id: 'm', provider: 'nope', prices: PRICES }]))).message)
      .toBe('PLATFORM_CONFIG: models.offered[0].provider names no entry of models.providers.');
    expect(
      refusal(() =>
        resolve(
          one(MODELS.providers[2], [{ id: 'm', provider: 'aws', prices: PRICES }, {
            id: 'm',
            provider: 'aws',
            prices: PRICES,
          }]),
        )
      ).message,
    ).toBe('PLATFORM_CONFIG: models.offered[1].id repeats an earlier entry.');
    expect(
      refusal(() =>
        resolve(one(MODELS.providers[2], [{ id: 'm', provider: 'aws', prices: PRICES }], { default: 'other' }))
      ).message,
    ).toBe('PLATFORM_CONFIG: models.default names no entry of models.offered.');
  });
});
