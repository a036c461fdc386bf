/**
 * cairn: the operator command. Talks to a running instance over its HTTP API.
 * `--url` (default $CAIRN_URL or http://127.0.0.1:8080), `--token` ($CAIRN_TOKEN), `--json`.
 * Exits 0 on success, 1 with a one-line reason on failure, 2 on a usage error.
 */
import { parseArgs } from 'node:util';
import { CliError } from './api-client.ts';
import { runSemantic } from './semantic-commands.ts';

const help = `cairn — operate a cairn instance

Usage: cairn [--url URL] [--token TOKEN] [--json] <command>

Semantic models:
  semantic import <dir> --project <slug> [--publish] [--page-size N]
                                                       save models/*.yaml and data/* as the project's sources
  semantic publish <slug>                              publish the saved sources to the production endpoint
  semantic token create <slug> --models a,b [--expires YYYY-MM-DD] [--name N]
                                                       create an access token (printed once, alone)
  semantic token list <slug>                           tokens with Last Used and Events (30d)
  semantic token revoke <slug> <token-id>
  semantic log <slug> [--tool T] [--status success|error] [--token-id ID] [--from DATE] [--to DATE] [--limit N]
  semantic improvements <slug>                         improvement requests agents submitted

Environment: CAIRN_URL (default http://127.0.0.1:8080), CAIRN_TOKEN.`;

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv, allowPositionals: true, strict: true,
      options: {
        url: { type: 'string' }, token: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
        project: { type: 'string' }, publish: { type: 'boolean' }, 'page-size': { type: 'string' }, models: { type: 'string' }, expires: { type: 'string' }, name: { type: 'string' },
        tool: { type: 'string' }, status: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' }, limit: { type: 'string' },
        'token-id': { type: 'string' },
      },
    });
  } catch (error) {
    console.error(`cairn: ${(error as Error).message} (see cairn --help)`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0) { console.log(help); return positionals.length === 0 && !values.help ? 2 : 0; }
  const target = { url: values.url ?? process.env.CAIRN_URL ?? 'http://127.0.0.1:8080', token: values.token ?? process.env.CAIRN_TOKEN };
  const [group, ...rest] = positionals;
  try {
    if (group !== 'semantic') throw new CliError(`unknown command "${group}" (see cairn --help)`, 2);
    const out = await runSemantic(target, rest, { ...values, token: values['token-id'] }, (line) => console.error(line));
    console.log(values.json ? JSON.stringify(out.data, null, 2) : out.human);
    return 0;
  } catch (error) {
    console.error(`cairn: ${error instanceof Error ? error.message : String(error)}`);
    return error instanceof CliError ? error.exitCode : 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
