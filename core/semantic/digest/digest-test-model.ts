/**
 * Test-only: a small model built in code that uses every part the digest shows (string AI context, other
 * AI-context keys, examples, enums, sample values, labels, non-ANSI dialects, composite keys, odd names).
 *
 * Source: spec/semantic-query-service.md § Resources and their fields.
 */
import { stringify } from 'yaml';
import type { SemanticModel } from '../model.ts';
import { loadModelFile } from '../osi/load-model-file.ts';

const expr = (expression: string, dialect = 'ANSI_SQL') => ({ dialects: [{ dialect, expression }] });
const ext = (vendor_name: string, data: object) => ({ vendor_name, data: JSON.stringify(data) });

/**
 * YAML text of the test model (`models/flights.yaml`).
 * Source: spec/semantic-query-service.md § Resources and their fields.
 */
export const digestTestYaml = stringify({
  version: '0.2.0.dev0',
  semantic_model: [{
    name: 'flights_model',
    description: 'US domestic flights\nwith delays',
    ai_context: {
      instructions: 'Times are local.',
      synonyms: ['air travel'],
      examples: ['Which airline is most late?'],
      owner: 'ops team',
    },
    datasets: [
      {
        name: 'flights',
        source: 'lake.public.flights',
        primary_key: ['carrier', 'flight_no', 'day'],
        unique_keys: [['carrier', 'flight_no', 'day'], ['tail_no', 'departs_at']],
        description: 'One row per scheduled flight leg, including cancelled ones. ' +
          'Delays are in minutes and negative when early. '.repeat(4),
        ai_context: 'Filter cancelled = false unless asked about cancellations.',
        custom_extensions: [ext('COMMON', { view_query: "SELECT * FROM read_parquet('flights.parquet')" })],
        fields: [
          {
            name: 'carrier',
            expression: expr('carrier'),
            datatype: 'String',
            label: 'Airline',
            description: 'Two-letter carrier code',
            ai_context: { synonyms: ['airline'], examples: ['AA'] },
            custom_extensions: [ext('ACME', { enum: ['AA', 'DL', 'UA'], sample_values: ['WN'] })],
          },
          { name: 'flight_no', expression: expr('flight_no'), datatype: 'Integer', label: 'Flight No' },
          { name: 'day', expression: expr('day'), datatype: 'Date', dimension: {} },
          {
            name: 'departs at',
            expression: expr('CAST(dep_ts AS TIMESTAMP)'),
            datatype: 'DateTime',
            dimension: { is_time: true },
          },
          { name: 'tail_no', expression: expr('TAIL', 'SNOWFLAKE'), ai_context: 'Aircraft registration; may be null.' },
          { name: 'departs_at', expression: expr('departs_at'), datatype: 'DateTimeTz', dimension: { is_time: false } },
          {
            name: 'delay_min',
            expression: expr('arr_delay'),
            datatype: 'Integer',
            description: 'Arrival delay',
            ai_context: { tags: ['kpi'] },
          },
        ],
      },
      {
        name: 'Airports',
        source: 'lake.public.airports',
        fields: [{ name: 'iata', expression: expr('iata') }, { name: 'city', expression: expr('city') }],
      },
      { name: 'empty_one', source: 'lake.public.nothing' },
    ],
    relationships: [
      {
        name: 'origin_airport',
        from: 'flights',
        to: 'Airports',
        from_columns: ['origin'],
        to_columns: ['iata'],
        ai_context: { synonyms: ['departure airport'] },
      },
      {
        name: 'leg_to_tail',
        from: 'flights',
        to: 'empty_one',
        from_columns: ['carrier', 'tail_no'],
        to_columns: ['c', 't'],
      },
    ],
    metrics: [
      {
        name: 'avg_delay',
        expression: {
          dialects: [{ dialect: 'SNOWFLAKE', expression: 'AVG(flights.arr_delay)::FLOAT' }, {
            dialect: 'ANSI_SQL',
            expression: 'AVG(\n  flights.arr_delay)',
          }],
        },
        description: 'Mean arrival delay',
        datatype: 'Float',
        ai_context: { instructions: 'Exclude cancelled flights.', synonyms: ['average lateness'] },
      },
      { name: 'leg_count', expression: expr('COUNT(*)', 'DATABRICKS') },
    ],
  }],
});

/**
 * The test model, loaded through the real loader.
 * @throws Error when it does not load (a broken test fixture)
 * Source: spec/semantic-query-service.md § Resources and their fields.
 */
export function digestTestModel(): SemanticModel {
  const loaded = loadModelFile({ fileName: 'models/flights.yaml', text: digestTestYaml });
  if (!loaded.model) throw new Error(`test model does not load: ${JSON.stringify(loaded.problems)}`);
  return loaded.model;
}
