import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The names an entry file exports, types included (`export *` followed into the file it names). */
export function exportedNames(root: string, file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const names = new Set<string>();
  for (const m of text.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g)) {
    for (const part of m[1].split(',')) {
      const name = part.trim().replace(/^type\s+/, '').split(/\s+as\s+/).at(-1)!.trim();
      if (name) names.add(name);
    }
  }
  for (const m of text.matchAll(/export\s+(?:declare\s+)?(?:async\s+)?(?:const|let|function\*?|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/g)) names.add(m[1]);
  for (const m of text.matchAll(/export\s+\*\s+from\s+'([^']+)'/g)) {
    for (const name of exportedNames(root, join(dirname(file), m[1].replace(/\.js$/, '.ts')))) names.add(name);
  }
  return [...names].sort();
}
