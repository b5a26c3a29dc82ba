// Node's `https` module as a peer in Fiber's TLS benchmark (issue 4); run by
// Scripts/bench-tls, which trusts the test root CA with NODE_EXTRA_CA_CERTS.
//
//   keep-alive (default)  an Agent with keepAlive and maxSockets = concurrency
//   --new-connection      keepAlive false and `Connection: close`: a new connection, and a
//                         handshake, per request. keepAlive false alone is not enough: with a
//                         finite maxSockets Node still sends `Connection: keep-alive` and hands
//                         a freed socket to a queued request.
//   --no-resumption       maxCachedSessions 0: every handshake a full one (otherwise
//                         the Agent's default session cache resumes them)
//   --stream              count the body's chunks and drop them rather than keeping them
// Plain http:// URLs go through the `http` module with the same Agent settings
// (the bulk download over TCP).
import http from 'node:http';
import https from 'node:https';
import { bench, parseOptions } from './common.mjs';

const options = parseOptions(process.argv.slice(2));
const url = new URL(options.url);
const module = url.protocol === 'https:' ? https : http;
const agentOptions = {
  keepAlive: !options.newConnection,
  maxSockets: options.concurrency,
  maxFreeSockets: options.concurrency,
  scheduling: 'lifo',
};
if (module === https && options.noResumption) agentOptions.maxCachedSessions = 0;
const agent = new module.Agent(agentOptions);

function get() {
  return new Promise((resolve, reject) => {
    const request = module.get({
      protocol: url.protocol, hostname: url.hostname, port: url.port, path: url.pathname + url.search, agent,
      headers: options.newConnection ? { Connection: 'close' } : {},
    }, (response) => {
      const chunks = [];
      let bytes = 0;
      response.on('data', (chunk) => {
        bytes += chunk.length;
        if (!options.stream) chunks.push(chunk);
      });
      response.on('end', () => {
        if (response.statusCode !== 200) reject(new Error(`status ${response.statusCode}`));
        else resolve(options.stream ? bytes : Buffer.concat(chunks).length);
      });
      response.on('error', reject);
    });
    request.on('error', reject);
    request.setTimeout(30_000, () => request.destroy(new Error('timed out after 30 s')));
  });
}

await bench(url.protocol === 'https:' ? 'node-https' : 'node-http', options, get);
agent.destroy();
