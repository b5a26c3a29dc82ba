// The load driver shared by the Node peers of Fiber's HTTP/1.1 client benchmark
// (issue 3): options, `concurrency` async loops, latencies, the result line.
// A run: one checked request; a warm-up of --warmup seconds (not timed) with the
// same loops, which opens the connections; then the timed run until --seconds
// passed or --max-requests were sent in all. It prints `BENCH_RESULT {json}`.

// The TLS benchmark (issue 4, Scripts/bench-tls) adds three flags without a value,
// used by https.mjs: --new-connection, --no-resumption and --stream.
const FLAGS = { '--new-connection': 'newConnection', '--no-resumption': 'noResumption', '--stream': 'stream' };

export function parseOptions(argv) {
  const o = {
    url: '', concurrency: 1, seconds: 5, warmup: 0.5, maxRequests: 2_000_000, expectBytes: -1,
    newConnection: false, noResumption: false, stream: false, connections: 1,
  };
  for (let i = 0; i < argv.length; i++) {
    const name = argv[i];
    if (name in FLAGS) {
      o[FLAGS[name]] = true;
      continue;
    }
    const value = argv[++i];
    if (value === undefined) usage(`${name} needs a value`);
    switch (name) {
      case '--url': o.url = value; break;
      case '--concurrency': o.concurrency = Number.parseInt(value, 10); break;
      case '--seconds': o.seconds = Number.parseFloat(value); break;
      case '--warmup': o.warmup = Number.parseFloat(value); break;
      case '--max-requests': o.maxRequests = Number.parseInt(value, 10); break;
      case '--expect-bytes': o.expectBytes = Number.parseInt(value, 10); break;
      case '--connections': o.connections = Number.parseInt(value, 10); break; // http2.mjs (Scripts/bench-h2)
      default: usage(`unknown argument ${name}`);
    }
  }
  if (!/^https?:\/\//.test(o.url) || !(o.concurrency >= 1) || !(o.seconds >= 0) || !(o.warmup >= 0) || !(o.maxRequests >= 1) || !(o.connections >= 1)) {
    usage('bad options');
  }
  return o;
}

function usage(message) {
  console.error(`error: ${message}\nusage: node FILE.mjs --url URL [--concurrency C] [--seconds S] [--warmup S] [--max-requests N] [--expect-bytes N] [--connections N] [--new-connection] [--no-resumption] [--stream]`);
  process.exit(2);
}

// `get()` sends one GET, reads the whole body and resolves to its size (throws on a status other than 200).
export async function bench(client, options, get) {
  const watchdog = setTimeout(() => {
    console.error(`error: ${client} did not finish in time; giving up`);
    process.exit(3);
  }, (options.warmup + options.seconds + 60) * 1000);

  const checked = async () => {
    const bytes = await get();
    if (options.expectBytes >= 0 && bytes !== options.expectBytes) {
      throw new Error(`a body of ${bytes} bytes, expected ${options.expectBytes}`);
    }
  };

  try {
    await checked();
  } catch (error) {
    console.log(`error: ${client}: the first request failed: ${error}`);
    process.exit(1);
  }

  const run = async (seconds, record) => {
    const deadline = process.hrtime.bigint() + BigInt(Math.round(seconds * 1e9));
    let remaining = options.maxRequests;
    const loop = async () => {
      const r = { requests: 0, errors: 0, firstError: null, latencies: [] };
      while (remaining-- > 0) {
        const sent = process.hrtime.bigint();
        try {
          await checked();
        } catch (error) {
          r.errors++;
          r.firstError ??= error;
          if (r.errors >= 10 || process.hrtime.bigint() >= deadline) break;
          continue;
        }
        const now = process.hrtime.bigint();
        if (record) r.latencies.push(Number(now - sent));
        r.requests++;
        if (now >= deadline) break;
      }
      return r;
    };
    return Promise.all(Array.from({ length: options.concurrency }, loop));
  };

  if (options.warmup > 0) await run(options.warmup, false);
  const start = process.hrtime.bigint();
  const results = await run(options.seconds, true);
  const elapsed = Number(process.hrtime.bigint() - start) / 1e9;

  const requests = results.reduce((n, r) => n + r.requests, 0);
  const errors = results.reduce((n, r) => n + r.errors, 0);
  const firstError = results.find((r) => r.firstError)?.firstError;
  if (firstError) console.log(`warning: ${client}: ${errors} request(s) failed; the first: ${firstError}`);
  const latencies = Float64Array.from(results.flatMap((r) => r.latencies)).sort();
  const percentile = (p) => {
    if (latencies.length === 0) return null;
    const rank = Math.min(Math.max(Math.ceil((p / 100) * latencies.length), 1), latencies.length);
    return latencies[rank - 1] / 1000;
  };
  console.log('BENCH_RESULT ' + JSON.stringify({
    client, concurrency: options.concurrency, requests, errors, seconds: elapsed,
    rps: elapsed > 0 ? requests / elapsed : null, p50_us: percentile(50), p99_us: percentile(99),
  }));
  clearTimeout(watchdog);
}
