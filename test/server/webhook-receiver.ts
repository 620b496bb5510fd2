import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  answered: number;
}

/**
 * A webhook receiver on 127.0.0.1 (port 0) for tests: records every request and answers with
 * `answer()` (a status), which a test changes as it goes.
 */
export async function startReceiver(answer: (r: Omit<Received, 'answered'>) => number = () => 200) {
  const received: Received[] = [];
  let respond = answer;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += String(chunk)));
    req.on('end', () => {
      const status = respond({ headers: req.headers, body });
      received.push({ headers: req.headers, body, answered: status });
      res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    answerWith(next: (r: Omit<Received, 'answered'>) => number) {
      respond = next;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export async function until(check: () => boolean | Promise<boolean>, ms = 10_000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A Standard Webhooks signing secret: whsec_ + 32 random bytes, base64. */
export function signingSecret(): string {
  return `whsec_${Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(32))).toString('base64')}`;
}
