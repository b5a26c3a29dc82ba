// Node's `http` module with a keep-alive Agent (maxSockets = concurrency) as a peer
// in Fiber's HTTP/1.1 client benchmark (issue 3); run by Scripts/bench-http.
import http from 'node:http';
import { bench, parseOptions } from './common.mjs';

const options = parseOptions(process.argv.slice(2));
const agent = new http.Agent({
  keepAlive: true,
  maxSockets: options.concurrency,
  maxFreeSockets: options.concurrency,
  scheduling: 'lifo',
});
const url = new URL(options.url);

function get() {
  return new Promise((resolve, reject) => {
    const request = http.get({ hostname: url.hostname, port: url.port, path: url.pathname + url.search, agent }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => {
        if (response.statusCode !== 200) reject(new Error(`status ${response.statusCode}`));
        else resolve(Buffer.concat(chunks).length);
      });
      response.on('error', reject);
    });
    request.on('error', reject);
    request.setTimeout(30_000, () => request.destroy(new Error('timed out after 30 s')));
  });
}

await bench('node-http', options, get);
agent.destroy();
