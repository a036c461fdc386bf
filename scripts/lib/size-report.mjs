// Files over 300 lines and functions over 60 lines in production TypeScript (core, bins, scripts, web/src).
import ts from 'typescript';
import { readFileSync } from 'node:fs';
import { execSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const files = execSync("git ls-files 'core/*.ts' 'bins/*.ts' 'scripts/*.ts' 'web/src/*.ts' 'web/src/*.tsx'", { cwd: root }).toString().trim().split('\n')
  .filter((f) => !/\.test\.tsx?$|\.d\.ts$|generated|testdata/.test(f));
const long = []; const fns = [];
for (const f of files) {
  const text = readFileSync(join(root, f), 'utf8');
  const lines = text.split('\n').length;
  if (lines > 300) long.push([lines, f]);
  const sf = ts.createSourceFile(f, text, ts.ScriptTarget.Latest, true, f.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const visit = (node) => {
    if (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isArrowFunction(node) || ts.isFunctionExpression(node)) {
      if (node.body) {
        const a = sf.getLineAndCharacterOfPosition(node.body.getStart()).line;
        const b = sf.getLineAndCharacterOfPosition(node.body.getEnd()).line;
        const n = b - a + 1;
        if (n > 60) {
          let name = node.name?.getText() ?? (ts.isVariableDeclaration(node.parent) ? node.parent.name.getText() : ts.isPropertyAssignment(node.parent) ? node.parent.name.getText() : '(anonymous)');
          fns.push([n, `${f}:${a + 1} ${name}`]);
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}
long.sort((x, y) => y[0] - x[0]); fns.sort((x, y) => y[0] - x[0]);
console.log(`files over 300 lines: ${long.length}`); for (const [n, f] of long) console.log(`  ${n} ${f}`);
console.log(`functions over 60 lines: ${fns.length}`); for (const [n, f] of fns) console.log(`  ${n} ${f}`);
