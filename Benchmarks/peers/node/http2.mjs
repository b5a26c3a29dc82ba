// Node's `http2` module as a peer in Fiber's HTTP/2 benchmark; run by Scripts/bench-h2,
// which trusts the test root CA with NODE_EXTRA_CA_CERTS.
//
// --connections N sessions (`http2.connect`, ALPN h2 over TLS), opened before the run;
// --concurrency loops in all send their GETs as streams over them, request i of the
// process on session i mod N, so 512 loops over 8 sessions keep about 64 streams open
// on each. The body is collected whole.
import http2 from 'node:http2';
import tls from 'node:tls';
import { bench, parseOptions } from './common.mjs';

const options = parseOptions(process.argv.slice(2));
const url = new URL(options.url);
const path = url.pathname + url.search;

async function connect() {
  // Our own TLS socket, for TCP_NODELAY as the other clients have it (an http2 session
  // refuses changes to its socket once made).
  const createConnection = () => {
    const socket = tls.connect({ host: url.hostname, port: Number(url.port), ALPNProtocols: ['h2'] });
    socket.setNoDelay(true);
    return socket;
  };
  const session = http2.connect(url.origin, { peerMaxConcurrentStreams: 1000, createConnection });
  await new Promise((resolve, reject) => {
    session.once('connect', resolve);
    session.once('error', reject);
  });
  session.on('error', () => {});  // a failed stream reports its own error
  return session;
}

const sessions = [];
for (let i = 0; i < options.connections; i++) sessions.push(await connect());
let next = 0;

function get() {
  const session = sessions[next++ % sessions.length];
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':path': path, ':method': 'GET' });
    let status = 0;
    const chunks = [];
    stream.on('response', (headers) => { status = headers[':status']; });
    stream.on('data', (chunk) => chunks.push(chunk));
    stream.on('end', () => {
      if (status !== 200) reject(new Error(`status ${status}`));
      else resolve(Buffer.concat(chunks).length);
    });
    stream.on('error', reject);
    stream.setTimeout(30_000, () => stream.close(http2.constants.NGHTTP2_CANCEL));
    stream.end();
  });
}

await bench('node-http2', options, get);
for (const session of sessions) session.close();
