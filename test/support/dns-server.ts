import { UDPServer, Packet } from 'dns2';

/** A DNS server on 127.0.0.1 answering TXT records from a map the test changes (no record: NXDOMAIN). */
export interface DnsPeer {
  /** `127.0.0.1:<port>`, for a resolver's servers. */
  server: string;
  /** TXT records by name (each a list of strings). */
  txt: Map<string, string[]>;
  /** Names that answer SERVFAIL. */
  failing: Set<string>;
  close(): Promise<void>;
}

/** Starts a {@link DnsPeer} on a free UDP port. */
export async function startDnsPeer(): Promise<DnsPeer> {
  const txt = new Map<string, string[]>();
  const failing = new Set<string>();
  const server = new UDPServer((request, send) => {
    const response = Packet.createResponseFromRequest(request);
    const question = request.questions[0];
    const name = (question?.name ?? '').toLowerCase();
    if (failing.has(name)) response.header.rcode = 2;
    else if (question?.type === Packet.TYPE.TXT && txt.has(name)) {
      for (const data of txt.get(name) ?? []) response.answers.push(Packet.createResourceFromQuestion(question, { type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 1, data }));
    } else response.header.rcode = 3;
    void send(response);
  });
  await server.listen(0, '127.0.0.1');
  const { port } = server.address();
  return { server: `127.0.0.1:${port}`, txt, failing, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
