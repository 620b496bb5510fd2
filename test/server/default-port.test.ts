import { readFile, readdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PORT, loadConfig } from '../../server/config.js';

const root = new URL('../../', import.meta.url);

describe('the default port', () => {
  it('is 7410, not 5000 (macOS AirPlay) nor a port common tools hold, and the docs say so', async () => {
    expect(DEFAULT_PORT).toBe(7410);
    expect(loadConfig({}).port).toBe(7410);
    expect(loadConfig({ SERVER_PORT: '8080' }).port).toBe(8080);
    expect([3000, 4200, 4984, 4985, 5000, 5173, 5432, 5984, 6379, 7000, 8000, 8080, 8888]).not.toContain(DEFAULT_PORT);
    expect(await readFile(new URL('.env.example', root), 'utf8')).toMatch(/^SERVER_PORT=7410$/m);
    expect(await readFile(new URL('README.md', root), 'utf8')).toContain('127.0.0.1:7410');
    const docs = await readdir(new URL('docs/', root));
    for (const page of ['README.md', ...docs.filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)]) {
      expect(await readFile(new URL(page, root), 'utf8'), page).not.toMatch(/(127\.0\.0\.1|localhost):5000\b/);
    }
  });
});
