// A loopback TCP proxy that plays a service's outages in front of the real one (PostgreSQL, Redis):
// "forward" pipes every connection through, "refuse" closes existing and new connections at once
// (a service that is down), "blackhole" accepts connections and never answers (a hung service).
import { connect, createServer, type Socket } from 'node:net';

export type ProxyMode = 'forward' | 'refuse' | 'blackhole';

export interface TcpProxy {
  port: number;
  /** Switches the mode for new connections; "refuse" also cuts the open ones. */
  mode(mode: ProxyMode): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }, initial: ProxyMode = 'forward'): Promise<TcpProxy> {
  let current = initial;
  let closing = false;
  const sockets = new Set<Socket>();
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
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    mode(mode) {
      current = mode;
      if (mode === 'refuse') for (const socket of sockets) socket.destroy();
    },
    close: () => new Promise<void>((resolve) => {
      closing = true;
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }),
  };
}
