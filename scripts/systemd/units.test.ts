/**
 * The systemd units of single-machine installs (scripts/systemd/): `systemd-analyze verify` accepts
 * them (with /opt/cairn pointed at stand-in executables), and each keeps the rules of the spec:
 * restarted 2 s after every exit, one unprivileged user, writes only to /var/lib/cairn, and the
 * front proxy without the environment file.
 * Source: spec/platform-service.md § Processes, § Rules 1, 8, 9.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { skipBecause } from '../../core/testing/skip.ts';

const dir = import.meta.dirname;
const repoRoot = resolve(dir, '../..');
const units = readdirSync(dir).filter((f) => /\.(service|target)$/.test(f)).sort();
const services = units.filter((f) => f.endsWith('.service'));
const analyze = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });

/** `key=value` lines of one section (repeated keys kept in order). */
function section(file: string, name: string): [string, string][] {
  const text = readFileSync(join(dir, file), 'utf8');
  const body = text.split(/^\[/m).find((part) => part.startsWith(`${name}]`)) ?? '';
  return body.split('\n').slice(1).filter((l) => /^[A-Za-z]+=/.test(l)).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]);
}
const value = (file: string, sectionName: string, key: string) => section(file, sectionName).filter(([k]) => k === key).map(([, v]) => v);

describe('systemd units', () => {
  it('are one per process role, plus cairn.target', () => {
    expect(units).toEqual(['cairn-api.service', 'cairn-dispatcher.service', 'cairn-proxy.service', 'cairn-semantic-mcp.service', 'cairn.target']);
    expect(value('cairn.target', 'Unit', 'Wants')[0].split(' ').sort()).toEqual(services);
  });

  it.each(services)('%s restarts 2 s after every exit and runs hardened as the one cairn user', (unit) => {
    const get = (key: string) => value(unit, 'Service', key);
    expect(get('Restart')).toEqual(['always']);
    expect(get('RestartSec')).toEqual(['2']);
    expect(value(unit, 'Unit', 'StartLimitIntervalSec')).toEqual(['0']);
    expect(get('DynamicUser')).toEqual(['yes']);
    expect(get('User')).toEqual(['cairn']);
    expect(get('ReadWritePaths')).toEqual(['/var/lib/cairn']);
    expect(get('ProtectSystem')).toEqual(['strict']);
    expect(get('NoNewPrivileges')).toEqual(['yes']);
    expect(get('CapabilityBoundingSet')).toEqual(['']);
    expect(value(unit, 'Install', 'WantedBy')).toEqual(['cairn.target']);
  });

  it('gives /etc/cairn/cairn.env to every process except the front proxy, which runs with its ports only', () => {
    for (const unit of services) {
      expect(value(unit, 'Service', 'EnvironmentFile'), unit).toEqual(unit === 'cairn-proxy.service' ? [] : ['/etc/cairn/cairn.env']);
    }
    expect(value('cairn-proxy.service', 'Service', 'ExecStart')[0]).toBe('/usr/bin/caddy run --config /opt/cairn/proxy/Caddyfile --adapter caddyfile');
  });

  it('starts the executables scripts/build makes from bins/<name>/main.ts', () => {
    for (const name of ['api', 'dispatcher', 'semantic-mcp']) {
      expect(value(`cairn-${name}.service`, 'Service', 'ExecStart')[0]).toMatch(new RegExp(`/opt/cairn/bin/${name}$`));
      expect(existsSync(join(repoRoot, 'bins', name, 'main.ts')), `bins/${name}/main.ts`).toBe(true);
    }
  });

  it('runs the API in the all-in-one layout on 127.0.0.1:API_PORT, with no PORT rewriting in ExecStart', () => {
    expect(value('cairn-api.service', 'Service', 'ExecStart')).toEqual(['/opt/cairn/bin/api']);
    expect(value('cairn-api.service', 'Service', 'Environment')[0].split(' ')).toEqual(['PLATFORM_ALL_IN_ONE=on', 'API_PORT=3001', 'API_HOST=127.0.0.1']);
  });

  it('pass systemd-analyze verify', (ctx) => {
    if (analyze.status !== 0) skipBecause(ctx, `systemd-analyze cannot run here (${String(analyze.error ?? analyze.stderr).trim().split('\n')[0] || `exit ${analyze.status}`}); scripts/test installs the systemd package`);
    const root = mkdtempSync(join(tmpdir(), 'cairn-units-'));
    try {
      mkdirSync(join(root, 'bin'));
      for (const name of ['api', 'dispatcher', 'semantic-mcp']) {
        writeFileSync(join(root, 'bin', name), '#!/bin/sh\n');
        chmodSync(join(root, 'bin', name), 0o711);
      }
      for (const unit of units) writeFileSync(join(root, unit), readFileSync(join(dir, unit), 'utf8').replaceAll('/opt/cairn/', `${root}/`));
      const result = spawnSync('systemd-analyze', ['verify', '--man=no', ...units.map((u) => join(root, u))], { encoding: 'utf8' });
      expect(`${result.stdout}${result.stderr}`.trim()).toBe('');
      expect(result.status).toBe(0);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
