import { defineConfig } from 'vitest/config';

/**
 * Files that run after the others (docs/architecture.md § Tests and measurements), two at a time among themselves:
 * the compiled twins (a twin and its source file must not run together: they may listen on the same fixed ports,
 * e.g. the Prometheus endpoints 9464–9466, so every source file runs in the first group), and the machines that take
 * the host's cores (container, clean machine, chaos), which then share them with the twins rather than with the
 * whole suite.
 */
const later = [
  'test/e2e/compiled-*.test.ts',
  'test/e2e/container.test.ts',
  'test/e2e/clean-machine.test.ts',
  'test/e2e/chaos-*.test.ts',
];
const all = ['core/**/*.test.ts', 'bins/**/*.test.ts', 'test/**/*.test.ts', 'scripts/**/*.test.ts'];
const shared = { testTimeout: 60_000, hookTimeout: 120_000, pool: 'forks' as const };

export default defineConfig({
  test: {
    // Most e2e files wait on servers and models more than they compute: two at a time on the two cores of a CI
    // machine (vitest's default is one fewer than the cores).
    maxWorkers: 2,
    projects: [
      { test: { ...shared, name: 'main', include: all, exclude: [...later, '**/node_modules/**'], sequence: { groupOrder: 0 } } },
      {
        test: {
          ...shared,
          name: 'later',
          include: later,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
