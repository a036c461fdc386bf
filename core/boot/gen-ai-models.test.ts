import { describe, expect, it } from 'vitest';
import type { ModelsConfig } from '../config/config-model.ts';
import { genAiModelOf } from './gen-ai-models.ts';

const PRICES = { input: 1, output: 2 };
const models: ModelsConfig = {
  providers: [
    { id: 'claude', type: 'anthropic' },
    { id: 'aws', type: 'bedrock', region: 'eu-west-1' },
    { id: 'local', type: 'openai-compatible', apiBaseUrl: 'http://127.0.0.1:11434/v1' },
  ],
  offered: [
    { id: 'sonnet', provider: 'claude', model: 'claude-sonnet-4-5', prices: PRICES },
    { id: 'nova', provider: 'aws', prices: PRICES },
    { id: 'llama', provider: 'local', model: 'llama3.1:8b', prices: PRICES },
  ],
  default: 'nova',
};

describe('the GenAI names of a model call', () => {
  it("names the provider by its type's well-known value and the provider's own model name", () => {
    expect(genAiModelOf(models, 'sonnet')).toEqual({ provider: 'anthropic', model: 'claude-sonnet-4-5' });
    expect(genAiModelOf(models, 'llama')).toEqual({ provider: 'openai', model: 'llama3.1:8b' });
    expect(genAiModelOf(models, undefined)).toEqual({ provider: 'aws.bedrock', model: 'nova' });
    expect(genAiModelOf(models, 'gone')).toEqual({});
    expect(genAiModelOf(undefined, 'sonnet')).toEqual({});
  });
});
