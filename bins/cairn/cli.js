#!/usr/bin/env node
// The `cairn` operator command (npm bin). Runs the TypeScript entry with the runtime at hand:
// Bun runs TypeScript directly; Node 24 strips types natively.
import('./main.ts').catch((error) => {
  console.error(`cairn: ${error && error.message ? error.message : String(error)}`);
  process.exit(1);
});
