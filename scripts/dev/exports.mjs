// What the product's exports are for, read from the TypeScript program itself: the exported names
// defined in more than one file of src/ (one thing, one name), the exports nothing imports (dead), and
// the exports of src/ that only the simulator or the tests import (a hook the product carries for them).
// Re-exports are followed to where a name is defined. Usage: node scripts/dev/exports.mjs [--list]
// (--list prints every name of each kind, not only the counts). Exits 0; it reports, it does not judge.
import { relative, resolve } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(import.meta.dirname, '..', '..');
const list = process.argv.includes('--list');
const config = ts.getParsedCommandLineOfConfigFile(
  resolve(ROOT, 'tsconfig.json'),
  {},
  { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
);
const program = ts.createProgram(config.fileNames, config.options);
const checker = program.getTypeChecker();
const rel = (f) => relative(ROOT, f);
const isProduct = (f) => rel(f).startsWith('src/');
const kindOf = (f) => {
  const r = rel(f);
  if (r.startsWith('src/')) return 'product';
  if (r.startsWith('simulator/src/') || r.startsWith('simulator/scripts/')) return 'simulator';
  return 'test';
};

/** The declaration a symbol finally names (through re-exports and import aliases). */
const target = (symbol) => (symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol);
const key = (symbol) => {
  const d = target(symbol).declarations?.[0];
  return d ? `${rel(d.getSourceFile().fileName)}#${target(symbol).name}` : undefined;
};

// Every export of the product, by where it is defined.
const exported = new Map(); // key -> { name, file, users: Set<kind> }
for (const sf of program.getSourceFiles()) {
  if (!isProduct(sf.fileName) || sf.isDeclarationFile) continue;
  const moduleSymbol = checker.getSymbolAtLocation(sf);
  if (!moduleSymbol) continue;
  for (const symbol of checker.getExportsOfModule(moduleSymbol)) {
    const k = key(symbol);
    if (!k || !k.startsWith('src/')) continue;
    if (!exported.has(k))
      exported.set(k, { name: target(symbol).name, file: k.split('#')[0], users: new Set(), usedInFile: false });
  }
}

// Who uses each: an identifier anywhere that resolves to it, outside its own file.
for (const sf of program.getSourceFiles()) {
  if (sf.isDeclarationFile || rel(sf.fileName).startsWith('node_modules')) continue;
  const kind = kindOf(sf.fileName);
  const visit = (node) => {
    if (ts.isIdentifier(node)) {
      // `const { name } = await import('./x.js')`: the name is the module's property.
      const p = node.parent;
      const destructured =
        ts.isBindingElement(p) && (p.propertyName ?? p.name) === node && ts.isObjectBindingPattern(p.parent);
      const symbol = destructured
        ? checker.getTypeAtLocation(p.parent).getProperty(node.text)
        : checker.getSymbolAtLocation(node);
      const k = symbol && key(symbol);
      const entry = k && exported.get(k);
      const isDeclaration = node.parent && ts.isDeclarationStatement?.(node.parent) && node.parent.name === node;
      if (entry && entry.file !== rel(sf.fileName)) entry.users.add(kind);
      else if (entry && !isDeclaration && !isNameOf(node)) entry.usedInFile = true;
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}

/** The identifier that names its own declaration (not a use). */
function isNameOf(node) {
  const p = node.parent;
  return (
    !!p &&
    'name' in p &&
    p.name === node &&
    (ts.isVariableDeclaration(p) ||
      ts.isFunctionDeclaration(p) ||
      ts.isClassDeclaration(p) ||
      ts.isInterfaceDeclaration(p) ||
      ts.isTypeAliasDeclaration(p) ||
      ts.isEnumDeclaration(p) ||
      ts.isExportSpecifier(p))
  );
}

const byName = new Map();
for (const e of exported.values()) byName.set(e.name, [...(byName.get(e.name) ?? []), e.file]);
const twice = [...byName].filter(([, files]) => files.length > 1);
const dead = [...exported.values()].filter((e) => e.users.size === 0 && !e.usedInFile);
const ownFileOnly = [...exported.values()].filter((e) => e.users.size === 0 && e.usedInFile);
const forOthers = [...exported.values()].filter((e) => e.users.size > 0 && !e.users.has('product'));
const onlySimulator = forOthers.filter((e) => e.users.has('simulator'));

console.log(`exports of src/: ${exported.size}`);
console.log(`names defined in more than one file: ${twice.length}`);
if (list) for (const [name, files] of twice) console.log(`  ${name}: ${files.join(', ')}`);
console.log(`exports nothing uses at all (dead): ${dead.length}`);
if (list) for (const e of dead) console.log(`  ${e.file}: ${e.name}`);
console.log(`exports used only in their own file (types of its signatures, mostly): ${ownFileOnly.length}`);
console.log(
  `exports only the simulator or the tests use: ${forOthers.length} (the simulator among them: ${onlySimulator.length})`,
);
if (list)
  for (const e of forOthers)
    console.log(`  ${e.file}: ${e.name} (${[...e.users].join(', ')}${e.usedInFile ? '; used in its file too' : ''})`);
