import { defineConfig } from 'vitest/config';

/**
 * Files that run one at a time, after the others (docs/architecture.md § Tests and measurements): the compiled
 * twins (a twin and its source file listen on the same fixed ports, e.g. the Prometheus endpoints 9464–9466), the
 * machines and clusters that take the host's cores or kill processes (container, clean machine, chaos, the
 * double-texting cluster), the scripts/start runs, and the Prometheus scrape (fixed ports).
 */
const serial = [
  'test/e2e/compiled-*.test.ts',
  'test/e2e/container.test.ts',
  'test/e2e/clean-machine.test.ts',
  'test/e2e/chaos-*.test.ts',
  'test/e2e/*-cluster.test.ts',
  'test/e2e/start-script*.test.ts',
  'test/e2e/prometheus-scrape.test.ts',
];
const all = ['core/**/*.test.ts', 'bins/**/*.test.ts', 'test/**/*.test.ts', 'scripts/**/*.test.ts'];
const shared = { testTimeout: 60_000, hookTimeout: 120_000, pool: 'forks' as const };

export default defineConfig({
  test: {
    // Most e2e files wait on servers and models more than they compute: two at a time on the two cores of a CI
    // machine (vitest's default is one fewer than the cores).
    maxWorkers: 2,
    projects: [
      { test: { ...shared, name: 'main', include: all, exclude: [...serial, '**/node_modules/**'], sequence: { groupOrder: 0 } } },
      {
        test: {
          ...shared,
          name: 'serial',
          include: serial,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
