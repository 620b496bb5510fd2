import type { Metafile } from 'esbuild';

export declare const GZIP_BUDGET: number;
export interface BrowserBuild {
  outfile: string;
  bytes: number;
  gzipped: number;
  /** docstack-sql.js gzipped (the engine, the preset and the SQL plugin); 0 for a custom entry */
  sqlGzipped: number;
  metafile: Metafile;
}
export declare function buildBrowser(options?: { outdir?: string; minify?: boolean; quiet?: boolean; entry?: string }): Promise<BrowserBuild>;
