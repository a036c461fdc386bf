/**
 * Reads the imports and host-global uses of a TypeScript source file with the TypeScript parser (no
 * regular expressions over text, so comments and strings never count), for test/boundaries.test.ts.
 */
import { readFileSync } from 'node:fs';
import ts from 'typescript';

/** One import or re-export of a file. */
export interface ImportEdge {
  /** The module specifier as written, e.g. `../ports/lease.ts` or `node:fs`. */
  spec: string;
  /** True when only types cross: `import type …`, `export type … from`, or every named binding marked `type`. */
  typeOnly: boolean;
}

/** Globals a runtime-neutral module must not touch (docs/architecture.md § Layout: runs on Deno too). */
export const HOST_GLOBALS = ['Buffer', 'process', 'Bun', 'Deno', 'require'] as const;

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
}

function isTypeOnlyImport(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (!clause) return false;
  if (clause.isTypeOnly) return true;
  const bindings = clause.namedBindings;
  return !clause.name && !!bindings && ts.isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every((e) => e.isTypeOnly);
}

function isTypeOnlyExport(node: ts.ExportDeclaration): boolean {
  if (node.isTypeOnly) return true;
  const clause = node.exportClause;
  return !!clause && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((e) => e.isTypeOnly);
}

/** Every static import, re-export, side-effect import and `import('…')` of `file`. */
export function importEdges(file: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      edges.push({ spec: node.moduleSpecifier.text, typeOnly: isTypeOnlyImport(node) });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      edges.push({ spec: node.moduleSpecifier.text, typeOnly: isTypeOnlyExport(node) });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      edges.push({ spec: arg && ts.isStringLiteralLike(arg) ? arg.text : '<computed>', typeOnly: false });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      edges.push({ spec: node.argument.literal.text, typeOnly: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(parse(file));
  return edges;
}

/** True when `node` is a name in a declaration or member position (`a.process`, `{ process: 1 }`), not a use. */
function isMemberName(node: ts.Identifier): boolean {
  const parent = node.parent;
  if (ts.isPropertyAccessExpression(parent)) return parent.name === node;
  if (ts.isQualifiedName(parent)) return parent.right === node;
  if (ts.isPropertyAssignment(parent) || ts.isPropertySignature(parent) || ts.isPropertyDeclaration(parent)) return parent.name === node;
  if (ts.isMethodDeclaration(parent) || ts.isMethodSignature(parent) || ts.isGetAccessor(parent) || ts.isSetAccessor(parent)) return parent.name === node;
  if (ts.isEnumMember(parent) || ts.isImportSpecifier(parent) || ts.isExportSpecifier(parent)) return true;
  return false;
}

/**
 * Uses of host-specific globals in `file`: `Buffer`, `process`, `Bun`, `Deno`, `require` (as values or
 * types), `Date.now()` and `new Date()` without arguments (the Clock port gives time).
 * @returns one line per use, `line N: <what>`
 */
export function hostGlobalUses(file: string): string[] {
  const source = parse(file);
  const found: string[] = [];
  const at = (node: ts.Node) => `line ${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && (HOST_GLOBALS as readonly string[]).includes(node.text) && !isMemberName(node)) {
      found.push(`${at(node)}: uses ${node.text}`);
    } else if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.expression.getText(source) === 'Date' && node.expression.name.text === 'now') {
      found.push(`${at(node)}: calls Date.now()`);
    } else if (ts.isNewExpression(node) && node.expression.getText(source) === 'Date' && (node.arguments?.length ?? 0) === 0) {
      found.push(`${at(node)}: calls new Date()`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** A function, method, accessor, constructor or arrow function of a file with its parameter count. */
export interface FunctionArity {
  /** Its name: the declared name, or the variable or property it is assigned to; `<anonymous>` otherwise. */
  name: string;
  /** 1-based line of its start. */
  line: number;
  /** How many parameters it declares (a rest parameter counts as one). */
  parameters: number;
}

/** The name a function-like node is known by: its own, or the variable, property or class it belongs to. */
function functionName(node: ts.SignatureDeclaration, source: ts.SourceFile): string {
  if (node.name) return node.name.getText(source);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  const named = ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent);
  if (named) return parent.name.getText(source);
  return '<anonymous>';
}

/**
 * Every function with a body in `file` (declarations, expressions, arrow functions, methods, accessors,
 * constructors) that declares more than `max` parameters; type signatures (interfaces, function types) aside.
 */
export function wideFunctions(file: string, max: number): FunctionArity[] {
  const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true, kind);
  const found: FunctionArity[] = [];
  const visit = (node: ts.Node): void => {
    const hasBody = ts.isFunctionDeclaration(node) || ts.isFunctionExpression(node) || ts.isArrowFunction(node)
      || ts.isMethodDeclaration(node) || ts.isConstructorDeclaration(node) || ts.isGetAccessor(node)
      || ts.isSetAccessor(node);
    if (hasBody && node.parameters.length > max) {
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      found.push({ name: functionName(node, source), line, parameters: node.parameters.length });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}
