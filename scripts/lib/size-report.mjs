// The size of the house (docs/architecture.md § Conventions): production files over 300 lines and functions over
// 60 lines (a function's body, first to last line) in core/, bins/, scripts/ and web/src/, tests and generated files
// aside. Run it to print them; test/boundaries.test.ts keeps both lists empty.
import ts from 'typescript';
import { readFileSync } from 'node:fs';
import { execSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Lines a production file may have. */
export const MAX_FILE_LINES = 300;
/** Lines a function's body may have. */
export const MAX_FUNCTION_LINES = 60;

/** The production TypeScript files of the repository at `root` (tracked or new, not ignored). */
function productionFiles(root) {
  const listed = execSync("git ls-files --cached --others --exclude-standard 'core/*.ts' 'bins/*.ts' 'scripts/*.ts' 'web/src/*.ts' 'web/src/*.tsx'", { cwd: root });
  return [...new Set(listed.toString().trim().split('\n'))].filter((f) => f && !/\.test\.tsx?$|\.d\.ts$|generated|testdata/.test(f));
}

/** The name a function node goes by: its own, its variable's or its property's. */
function nameOf(node) {
  if (node.name) return node.name.getText();
  if (ts.isVariableDeclaration(node.parent) || ts.isPropertyAssignment(node.parent)) return node.parent.name.getText();
  return '(anonymous)';
}

/** Long functions of one source file, as [lines, "file:line name"]. */
function longFunctions(file, text) {
  const kind = file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const found = [];
  const visit = (node) => {
    const isFunction = ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isArrowFunction(node) || ts.isFunctionExpression(node);
    if (isFunction && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.body.getStart()).line;
      const lines = source.getLineAndCharacterOfPosition(node.body.getEnd()).line - first + 1;
      if (lines > MAX_FUNCTION_LINES) found.push([lines, `${file}:${first + 1} ${nameOf(node)}`]);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Files over {@link MAX_FILE_LINES} and functions over {@link MAX_FUNCTION_LINES}, longest first. */
export function sizeReport(root) {
  const files = [];
  const functions = [];
  for (const file of productionFiles(root)) {
    const text = readFileSync(join(root, file), 'utf8');
    const lines = text.split('\n').length;
    if (lines > MAX_FILE_LINES) files.push([lines, file]);
    functions.push(...longFunctions(file, text));
  }
  const longest = (a, b) => b[0] - a[0];
  return { files: files.sort(longest), functions: functions.sort(longest) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { files, functions } = sizeReport(join(dirname(fileURLToPath(import.meta.url)), '../..'));
  console.log(`files over ${MAX_FILE_LINES} lines: ${files.length}`);
  for (const [n, f] of files) console.log(`  ${n} ${f}`);
  console.log(`functions over ${MAX_FUNCTION_LINES} lines: ${functions.length}`);
  for (const [n, f] of functions) console.log(`  ${n} ${f}`);
}
