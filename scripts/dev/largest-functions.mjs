// Lists the longest functions and methods of the TypeScript sources, by lines: where to look first when
// a function has grown more than one job. Usage: node scripts/dev/largest-functions.mjs [N] [FOLDER...]
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const args = process.argv.slice(2);
const top = /^\d+$/.test(args[0] ?? '') ? Number(args.shift()) : 20;
const roots = args.length ? args : ['src'];

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) yield path;
  }
}

const found = [];
for (const file of roots.flatMap((r) => [...files(r)])) {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const visit = (node, owner) => {
    const isFunction =
      ts.isFunctionDeclaration(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isConstructorDeclaration(node) ||
      ts.isGetAccessorDeclaration(node) ||
      ((ts.isArrowFunction(node) || ts.isFunctionExpression(node)) && ts.isVariableDeclaration(node.parent));
    let name = owner;
    if (ts.isClassDeclaration(node) && node.name) name = node.name.text;
    if (isFunction && node.body) {
      const named = node.name ?? (ts.isVariableDeclaration(node.parent) ? node.parent.name : undefined);
      const label = ts.isConstructorDeclaration(node) ? 'constructor' : named ? named.getText(source) : '(anonymous)';
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
      found.push({
        lines: end - start + 1,
        where: `${relative('.', file)}:${start}`,
        name: owner ? `${owner}.${label}` : label,
      });
    }
    ts.forEachChild(node, (child) => visit(child, name));
  };
  visit(source, '');
}
found.sort((a, b) => b.lines - a.lines);
for (const f of found.slice(0, top)) console.log(`${String(f.lines).padStart(5)}  ${f.name}  ${f.where}`);
