/**
 * QuickJS for the `hook` task, bundled apart from the worker's main file (as `quickjs.cjs`: a single
 * executable asset, or a file beside the sources bundle) so that a worker that runs no hook never loads it:
 * it is most of the worker's code and would add about 15 ms to every start. The variant is the one whose
 * WebAssembly is a file of its own (`quickjs.wasm` beside `quickjs.cjs`): ./quickjs-loader.ts compiles it
 * with `WebAssembly.compile` (on V8's background threads, while this bundle is evaluated) and hands the
 * module over with `newVariant`, so no base64 is decoded and little JavaScript is parsed. Bundled with the
 * `iife` condition, which picks the variant's CommonJS Emscripten module (its ES one imports `node:module`
 * dynamically, which code compiled by `node:vm` cannot do).
 *
 * Source: spec/platform-service.md § Rules 6 (start-up; author scripts and hooks run in QuickJS);
 * docs/decisions.md D24 § 2 (a trivial hook's cost).
 */
export { newQuickJSWASMModuleFromVariant, newVariant } from 'quickjs-emscripten-core';
export { default as variant } from '@jitl/quickjs-wasmfile-release-sync';
