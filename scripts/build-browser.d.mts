import type { Metafile } from 'esbuild';

export declare const GZIP_BUDGET: number;
export declare const SLIM_GZIP_BUDGET: number;
export interface BrowserBuild {
  outfile: string;
  bytes: number;
  gzipped: number;
  /** docstack-sql.js gzipped (the engine, the preset and the SQL plugin); 0 for a custom entry */
  sqlGzipped: number;
  /** docstack-slim.js gzipped (the engine and the slim preset); 0 for a custom entry */
  slimGzipped: number;
  /** docstack-slim.js itself; undefined for a custom entry */
  slimCode?: string;
  metafile: Metafile;
}
/** `slim`: a custom entry built as docstack-slim.js is (the engine's ingest left out). */
export declare function buildBrowser(options?: { outdir?: string; minify?: boolean; quiet?: boolean; entry?: string; slim?: boolean }): Promise<BrowserBuild>;
