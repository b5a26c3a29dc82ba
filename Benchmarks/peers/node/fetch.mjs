// Node's built-in `fetch` (undici) as a peer in Fiber's HTTP/1.1 client benchmark
// (issue 3); run by Scripts/bench-http, and over TLS by Scripts/bench-tls
// (--clients node-fetch) and Scripts/bench-all.
//
// undici's default global dispatcher has no limit on connections per origin, and
// with C loops it opens more than C (128 at C = 64 here: a connection goes back to
// the pool a little after its response was read). For the same pool size as the
// other clients this installs `new Agent({ connections: C })` as the global
// dispatcher, which is `setGlobalDispatcher()` of the undici package; Node 20 does
// not export undici, so the Agent class is taken from the dispatcher that the first
// fetch installs under undici's documented global symbol.
import { bench, parseOptions } from './common.mjs';

const options = parseOptions(process.argv.slice(2));
const url = options.url;

const globalDispatcher = Symbol.for('undici.globalDispatcher.1');
await (await fetch(url)).arrayBuffer();
const Agent = globalThis[globalDispatcher]?.constructor;
if (typeof Agent === 'function' && Agent.name === 'Agent') {
  const previous = globalThis[globalDispatcher];
  globalThis[globalDispatcher] = new Agent({ connections: options.concurrency, keepAliveTimeout: 120_000 });
  await previous.close();
} else {
  console.log('warning: node-fetch: no undici Agent under the global dispatcher symbol; using the default pool (no connection limit)');
}

// --stream (the bulk download of Scripts/bench-tls and Scripts/bench-all): read the
// body's chunks from its ReadableStream, count and drop them, never holding it whole.
// https URLs trust NODE_EXTRA_CA_CERTS, which the scripts set to the test root.
async function get() {
  const response = await fetch(url);
  let bytes;
  if (options.stream) {
    bytes = 0;
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
    }
  } else {
    bytes = (await response.arrayBuffer()).byteLength;
  }
  if (response.status !== 200) throw new Error(`status ${response.status}`);
  return bytes;
}

await bench('node-fetch', options, get);
await globalThis[globalDispatcher]?.close?.();
