/**
 * The demo agent (scripts/demo/agent) as agent files, and a copy whose workflow.yaml holds an unknown key (a publish
 * the validator refuses), for the hosting and operation tests.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { AgentFile } from '../../core/agent/index.ts';

const demoRoot = resolve(import.meta.dirname, '../../scripts/demo/agent');
const walk = (dir: string): string[] => readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : [join(dir, n)]));

/** The demo agent's files. */
export const demo: AgentFile[] = walk(demoRoot).map((p) => ({ path: relative(demoRoot, p), text: readFileSync(p, 'utf8') }));
/** The demo workflow's machine file. */
export const workflowPath = 'workflows/flights-analyst/workflow.yaml';
/** The demo with `titel:` (an unknown key) in its workflow.yaml. */
export const invalidDemo: AgentFile[] = demo.map((f) => (f.path === workflowPath ? { ...f, text: f.text.replace('title: Ask', 'titel: oops\ntitle: Ask') } : f));
