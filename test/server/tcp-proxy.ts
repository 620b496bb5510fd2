import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 in front of a node: `cut()` drops every connection at once and stops
 * listening (what a client sees of a node that dies: resets, then refused connections);
 * `resume(port)` listens again on the same port, forwarding to (maybe another) node.
 */
export async function tcpProxy(targetPort: number) {
  let target = targetPort;
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  let port = 0;
  const listen = async () => {
    const s = createServer((client) => {
      const upstream = connect(target, '127.0.0.1');
      sockets.add(client).add(upstream);
      const drop = () => {
        client.destroy();
        upstream.destroy();
        sockets.delete(client);
        sockets.delete(upstream);
      };
      client.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => s.listen(port, '127.0.0.1', resolve));
    port = (s.address() as AddressInfo).port;
    server = s;
  };
  await listen();
  return {
    get port() {
      return port;
    },
    cut(): Promise<void> {
      const s = server;
      server = null;
      for (const socket of sockets) socket.destroy();
      sockets.clear();
      return new Promise<void>((resolve) => (s ? s.close(() => resolve()) : resolve()));
    },
    async resume(newTarget = target): Promise<void> {
      target = newTarget;
      await listen();
    },
  };
}
