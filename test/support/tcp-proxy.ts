// A loopback TCP proxy that plays a service's outages in front of the real one (PostgreSQL, Redis):
// "forward" pipes every connection through, "refuse" closes existing and new connections at once
// (a service that is down), "blackhole" stops answering on the open connections and accepts new
// ones without ever answering (a hung service).
import { connect, createServer, type Socket } from 'node:net';

export type ProxyMode = 'forward' | 'refuse' | 'blackhole';

export interface TcpProxy {
  port: number;
  /** Switches the mode: "refuse" also cuts the open connections, "blackhole" silences them. */
  mode(mode: ProxyMode): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }, initial: ProxyMode = 'forward'): Promise<TcpProxy> {
  let current = initial;
  let closing = false;
  const sockets = new Set<Socket>();
  const pairs = new Set<[Socket, Socket]>();
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    // A reset from either side is part of the play, not a failure of the test.
    socket.on('error', () => socket.destroy());
  };
  const server = createServer((client) => {
    if (closing || current === 'refuse') return void client.destroy();
    track(client);
    if (current === 'blackhole') return; // read nothing, answer nothing
    const upstream = connect(target.port, target.host);
    track(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => {
      client.destroy();
      pairs.delete(pair);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    mode(mode) {
      current = mode;
      if (mode === 'refuse') for (const socket of sockets) socket.destroy();
      if (mode === 'blackhole') {
        for (const [client, upstream] of pairs) {
          client.unpipe(upstream);
          upstream.unpipe(client);
          client.pause();
        }
        pairs.clear();
      }
    },
    close: () => new Promise<void>((resolve) => {
      closing = true;
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }),
  };
}
