// An https front for the tests' mock API: it terminates TLS with this folder's certificate for
// localhost and 127.0.0.1, signed by ca.crt (both valid 2000-2126, made for these tests only; the
// authority's key was thrown away), and pipes each connection to the mock's plain http port. Prints its own port,
// then runs until its stdin closes (the test dropped it).
// Usage: node front.mjs <mock port>
import { readFileSync } from "node:fs";
import { connect } from "node:net";
import { createServer } from "node:tls";

const here = new URL(".", import.meta.url);
const target = Number(process.argv[2]);
const server = createServer(
  { cert: readFileSync(new URL("localhost.crt", here)), key: readFileSync(new URL("localhost.key", here)) },
  (socket) => {
    const upstream = connect(target, "127.0.0.1");
    socket.pipe(upstream).pipe(socket);
    socket.on("error", () => upstream.destroy());
    upstream.on("error", () => socket.destroy());
  },
);
// A failed handshake (a client that does not trust the certificate) ends that connection only.
server.on("tlsClientError", () => {});
server.listen(0, "127.0.0.1", () => console.log(server.address().port));
process.stdin.on("end", () => process.exit(0));
process.stdin.resume();
