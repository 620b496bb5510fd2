import { relative } from 'node:path';
import ts from 'typescript';

/**
 * What a file needs from other project files, as TypeScript itself resolves it: the modules it
 * imports (`import`, `export … from`, side-effect imports, `import()` calls and `import('…')`
 * types) and every declaration its names resolve to — module augmentations and ambient modules
 * included, which an import graph alone does not see (plugins/authority adds
 * `WriteSession.authority` to contracts/hooks.ts without anyone importing it).
 *
 * Used by plugin-boundary.test.ts to prove, from ONE checked program, what it once proved by
 * type-checking a copy of the source without each plugin folder: TypeScript module files see each
 * other's declarations only through these references, so a program without a set of files checks
 * exactly as the whole one did if no remaining file needs a declaration found only in that set.
 */

/** A file's needs: each entry lists the files declaring one thing it uses (a merged interface
 * may be declared in several; any one of them left is enough). Only project files are listed. */
export interface FileNeeds {
  /** project files this file imports (relative to the root) */
  readonly imports: ReadonlySet<string>;
  /** one entry per thing used, as `|`-joined sorted declaring files (relative to the root) */
  readonly uses: ReadonlySet<string>;
}

export type NeedsGraph = Map<string, FileNeeds>;

/** The needs of each project file of a program (files under `root`, outside node_modules). */
export function needsGraph(program: ts.Program, root: string): NeedsGraph {
  const checker = program.getTypeChecker();
  const own = (sf: ts.SourceFile) => !sf.fileName.includes('/node_modules/') && !relative(root, sf.fileName).startsWith('..');
  const name = (sf: ts.SourceFile) => relative(root, sf.fileName);
  const graph: NeedsGraph = new Map();
  for (const sf of program.getSourceFiles()) {
    if (!own(sf) || program.isSourceFileDefaultLibrary(sf)) continue;
    const imports = new Set<string>();
    const uses = new Set<string>();
    const need = (symbol: ts.Symbol | undefined) => {
      for (let s = symbol, hops = 0; s && hops < 8; hops++) {
        const files = new Set((s.declarations ?? []).map((d) => d.getSourceFile()));
        if (files.size && [...files].every(own)) {
          const names = [...files].map(name).filter((f) => f !== name(sf));
          if (names.length === files.size) uses.add(names.sort().join('|'));
        }
        if (!(s.flags & ts.SymbolFlags.Alias)) break;
        s = checker.getImmediateAliasedSymbol(s);
      }
    };
    const moduleOf = (spec: ts.Expression | undefined, isImport: boolean) => {
      if (!spec || !ts.isStringLiteralLike(spec)) return;
      const symbol = checker.getSymbolAtLocation(spec);
      need(symbol);
      const file = symbol?.declarations?.find(ts.isSourceFile);
      if (isImport && file && own(file)) imports.add(name(file));
    };
    const visit = (node: ts.Node): void => {
      if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) moduleOf(node.moduleSpecifier, true);
      else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) moduleOf(node.moduleReference.expression, true);
      else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) moduleOf(node.arguments[0], true);
      else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) moduleOf(node.argument.literal, true);
      else if (ts.isModuleDeclaration(node) && ts.isStringLiteral(node.name)) moduleOf(node.name, false);
      else if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) need(checker.getSymbolAtLocation(node));
      // a property written in an object literal needs the property of the type it is checked against
      if ((ts.isPropertyAssignment(node) || ts.isShorthandPropertyAssignment(node) || ts.isMethodDeclaration(node)) && ts.isObjectLiteralExpression(node.parent)) {
        const contextual = checker.getContextualType(node.parent);
        const key = node.name && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name)) ? node.name.text : undefined;
        if (contextual && key) need(checker.getPropertyOfType(contextual, key));
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
    graph.set(name(sf), { imports, uses });
  }
  return graph;
}

/** The plugin folder a file sits in, or undefined for the engine (contracts … kit, index.ts, types). */
export function pluginOf(file: string): string | undefined {
  return /^plugins\/([^/]+)\//.exec(file)?.[1];
}

/**
 * The files left without something they need once the plugin folders in `removed` are deleted:
 * `kept file → what it needs`, empty when the rest type-checks as it did.
 */
export function breachesWithout(graph: NeedsGraph, removed: ReadonlySet<string>): string[] {
  const gone = (file: string) => removed.has(pluginOf(file) ?? '');
  const found: string[] = [];
  for (const [file, needs] of graph) {
    if (gone(file)) continue;
    for (const target of needs.imports) if (gone(target)) found.push(`${file} imports ${target}`);
    for (const use of needs.uses) if (use.split('|').every(gone)) found.push(`${file} uses ${use}`);
  }
  return found.sort();
}

/** A plugin imports its own folder, `docstack` (index.ts), `docstack/plugin-kit` and other plugins' entries only. */
export function deepImports(graph: NeedsGraph): string[] {
  const found: string[] = [];
  for (const [file, needs] of graph) {
    const plugin = pluginOf(file);
    if (!plugin) continue;
    for (const t of needs.imports) {
      const ok = pluginOf(t) === plugin || t === 'index.ts' || t === 'kit/index.ts' || /^plugins\/[^/]+\/index\.ts$/.test(t);
      if (!ok) found.push(`${file} imports ${t}`);
    }
  }
  return found.sort();
}
