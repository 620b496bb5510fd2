// Files the package ships beside tsc's output, written by the build (scripts/start.mjs) and by
// the package's type test (test/package/declarations.test.ts), which emits its own .d.ts.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * alasql inside the package (dist/vendor): as a dependency it brought its optional
 * react-native-fs, and with it react-native (~250 packages), into every app that installed
 * docstack, and the repository's `overrides` do not reach an app. Its Node build requires
 * react-native-fs only on React Native; the SQL plugin imports this copy on its first statement,
 * and `docstack/alasql` hands it (its browser build under `browser`) to an app.
 */
export function vendorAlasql(root, dist) {
  const from = join(root, 'node_modules', 'alasql');
  const to = join(dist, 'vendor');
  mkdirSync(to, { recursive: true });
  copyFileSync(join(from, 'dist', 'alasql.fs.js'), join(to, 'alasql.cjs'));
  copyFileSync(join(from, 'dist', 'alasql.min.js'), join(to, 'alasql.min.js'));
  copyFileSync(join(from, 'LICENSE'), join(to, 'alasql.LICENSE'));
  const { version } = JSON.parse(readFileSync(join(from, 'package.json'), 'utf8'));
  writeFileSync(
    join(to, 'alasql.d.ts'),
    `// alasql ${version} (MIT, alasql.LICENSE), typed as docstack's SQL plugin takes it\nimport type { AlaSQL } from '../plugins/sql/alasql-source.js';\ndeclare const alasql: AlaSQL;\nexport default alasql;\n`,
  );
}
