/**
 * QuickJS for the `hook` task, bundled apart from the worker's main file (as `quickjs.cjs`: a single
 * executable asset, or a file beside the sources bundle) so that a worker that runs no hook never loads it:
 * it is most of the worker's code and would add about 15 ms to every start.
 *
 * Source: spec/platform-service.md § Rules 6 (start-up; author scripts and hooks run in QuickJS).
 */
export { newQuickJSWASMModuleFromVariant } from 'quickjs-emscripten-core';
export { default as variant } from '@jitl/quickjs-singlefile-cjs-release-sync';
