/** The import rule shared by the CLI's directory import and the web app's Import. */
import { describe, expect, it } from 'vitest';
import { classifyImportPath } from './import-files.ts';

const kindOf = (path: string) => classifyImportPath(path).kind;

describe('classifyImportPath', () => {
  it('takes models/*.yaml and data/* of a project directory, at the top or one folder down', () => {
    expect(kindOf('models/flights.yaml')).toBe('model');
    expect(kindOf('flights/models/flights.yml')).toBe('model');
    expect(kindOf('flights/data/flights.parquet')).toBe('data');
    expect(classifyImportPath('data/airports.csv')).toEqual({ kind: 'data', name: 'airports.csv' });
  });

  it('ignores other files of a directory, saying why', () => {
    expect(classifyImportPath('flights/README.md')).toEqual({
      kind: 'ignored',
      name: 'README.md',
      reason: 'not directly in models/ or data/',
    });
    expect(classifyImportPath('flights/models/notes.txt')).toMatchObject({
      kind: 'ignored',
      reason: 'not a .yaml file in models/',
    });
    expect(kindOf('a/b/models/x.yaml')).toBe('ignored');
    expect(kindOf('flights/models/old/x.yaml')).toBe('ignored');
    expect(classifyImportPath('flights/data/.DS_Store')).toMatchObject({ kind: 'ignored', reason: 'hidden file' });
    expect(classifyImportPath('flights/data/my file.csv')).toMatchObject({
      kind: 'ignored',
      reason: expect.stringMatching(/name is not accepted/),
    });
  });

  it('takes loose files by extension', () => {
    expect(kindOf('flights.yaml')).toBe('model');
    expect(kindOf('carriers.jsonl')).toBe('data');
    expect(classifyImportPath('notes.txt')).toMatchObject({
      kind: 'ignored',
      reason: expect.stringMatching(/neither a model file/),
    });
  });
});
