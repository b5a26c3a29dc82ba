// Go's net/http client as a peer in Fiber's HTTP/1.1 client benchmark (issue 3).
// Standard library only; Scripts/bench-http builds it with `go build` and runs it
// pinned to one CPU with GOMAXPROCS=1.
//
// A run: one checked request; a warm-up of -warmup seconds (not timed) with the
// same goroutines, which opens the connections; then -c goroutines, each sending
// one GET after the other and reading the whole body, until -d seconds passed or
// -n requests were sent in all. It prints one line `BENCH_RESULT {json}`.
//
// The TLS benchmark (issue 4, Scripts/bench-tls) adds: -ca (trust the CA
// certificates of a PEM file for an https URL), -new-connection (DisableKeepAlives:
// a new connection, and a handshake, per request), -resumption (a
// tls.NewLRUClientSessionCache, so that those handshakes resume; without it Go
// keeps no session cache and every handshake is a full one) and -discard (the body
// is copied to io.Discard and counted, never held whole in memory).
//
// The HTTP/2 benchmark (Scripts/bench-h2) adds: -h2 (ForceAttemptHTTP2: ALPN h2 over
// TLS, the bundled HTTP/2 client, -c streams multiplexed) and -conns N (N transports,
// each keeping one connection; goroutine i sends on transport i mod N, so -c 512
// -conns 8 is 8 connections of 64 streams each).
package main

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

type loopResult struct {
	requests  int
	errors    int
	firstErr  error
	latencies []int64 // nanoseconds
}

func main() {
	url := flag.String("url", "", "the URL to GET")
	concurrency := flag.Int("c", 1, "concurrent goroutines, and connections")
	seconds := flag.Float64("d", 5, "length of the timed run in seconds")
	warmup := flag.Float64("warmup", 0.5, "untimed warm-up in seconds")
	maxRequests := flag.Int64("n", 2_000_000, "stop the timed run after this many requests in all")
	expectBytes := flag.Int("expect-bytes", -1, "count a body of another size as an error (-1: any)")
	allocRequests := flag.Int("alloc-requests", 0, "afterwards, count Go heap allocations over this many sequential requests (0: skip)")
	caFile := flag.String("ca", "", "trust the CA certificates in this PEM file (https)")
	newConnection := flag.Bool("new-connection", false, "a new connection per request (DisableKeepAlives)")
	resumption := flag.Bool("resumption", false, "resume TLS sessions (a client session cache)")
	discard := flag.Bool("discard", false, "copy the body to io.Discard rather than reading it into memory")
	h2 := flag.Bool("h2", false, "HTTP/2 over TLS (ForceAttemptHTTP2)")
	conns := flag.Int("conns", 0, "with -h2: this many transports of one connection each (0: one transport)")
	flag.Parse()
	if *url == "" || *concurrency < 1 {
		fmt.Fprintln(os.Stderr, "usage: go-http-bench -url URL [-c C] [-d S] [-warmup S] [-n N] [-expect-bytes N]")
		os.Exit(2)
	}

	// A watchdog: a hang must not hang the script.
	go func() {
		time.Sleep(time.Duration((*warmup + *seconds + 60) * float64(time.Second)))
		fmt.Fprintln(os.Stderr, "error: go did not finish in time; giving up")
		os.Exit(3)
	}()

	perHost := *concurrency
	if *h2 {
		perHost = 1 // HTTP/2: one connection per transport carries all its streams
	}
	transport := &http.Transport{
		Proxy:               nil, // never a proxy: the target is 127.0.0.1
		MaxIdleConns:        perHost,
		MaxIdleConnsPerHost: perHost,
		MaxConnsPerHost:     perHost,
		IdleConnTimeout:     120 * time.Second,
		DisableCompression:  true,
		ForceAttemptHTTP2:   *h2,
		DisableKeepAlives:   *newConnection,
	}
	if *caFile != "" || *resumption {
		// A TLSClientConfig of its own also keeps the transport on HTTP/1.1.
		config := &tls.Config{}
		if *caFile != "" {
			pem, err := os.ReadFile(*caFile)
			if err != nil {
				fmt.Printf("error: go: %v\n", err)
				os.Exit(2)
			}
			config.RootCAs = x509.NewCertPool()
			if !config.RootCAs.AppendCertsFromPEM(pem) {
				fmt.Printf("error: go: no certificate in %s\n", *caFile)
				os.Exit(2)
			}
		}
		if *resumption {
			config.ClientSessionCache = tls.NewLRUClientSessionCache(0)
		}
		transport.TLSClientConfig = config
	}
	clients := []*http.Client{{Transport: transport, Timeout: 30 * time.Second}}
	for len(clients) < *conns {
		clients = append(clients, &http.Client{Transport: transport.Clone(), Timeout: 30 * time.Second})
	}

	get := func(loop int) (int, error) {
		resp, err := clients[loop%len(clients)].Get(*url)
		if err != nil {
			return 0, err
		}
		var n int
		if *discard {
			var copied int64
			copied, err = io.Copy(io.Discard, resp.Body)
			n = int(copied)
		} else {
			var body []byte
			body, err = io.ReadAll(resp.Body)
			n = len(body)
		}
		resp.Body.Close()
		if err != nil {
			return 0, err
		}
		if *h2 && resp.ProtoMajor != 2 {
			return 0, fmt.Errorf("the response came over %s, not HTTP/2", resp.Proto)
		}
		if resp.StatusCode != 200 {
			return 0, fmt.Errorf("status %d", resp.StatusCode)
		}
		if *expectBytes >= 0 && n != *expectBytes {
			return 0, fmt.Errorf("a body of %d bytes, expected %d", n, *expectBytes)
		}
		return n, nil
	}

	if _, err := get(0); err != nil {
		fmt.Printf("error: go: the first request failed: %v\n", err)
		os.Exit(1)
	}

	run := func(d time.Duration, record bool) []loopResult {
		deadline := time.Now().Add(d)
		remaining := *maxRequests
		results := make([]loopResult, *concurrency)
		capacity := 0
		if record {
			capacity = int(*maxRequests)/(*concurrency) + 1
			if capacity > 1<<20 {
				capacity = 1 << 20
			}
		}
		var wg sync.WaitGroup
		for i := range results {
			wg.Add(1)
			go func(r *loopResult, loop int) {
				defer wg.Done()
				r.latencies = make([]int64, 0, capacity)
				for atomic.AddInt64(&remaining, -1) >= 0 {
					sent := time.Now()
					_, err := get(loop)
					now := time.Now()
					if err != nil {
						r.errors++
						if r.firstErr == nil {
							r.firstErr = err
						}
						if r.errors >= 10 || !now.Before(deadline) {
							break
						}
						continue
					}
					if record {
						r.latencies = append(r.latencies, now.Sub(sent).Nanoseconds())
					}
					r.requests++
					if !now.Before(deadline) {
						break
					}
				}
			}(&results[i], i)
		}
		wg.Wait()
		return results
	}

	if *warmup > 0 {
		run(time.Duration(*warmup*float64(time.Second)), false)
	}
	start := time.Now()
	results := run(time.Duration(*seconds*float64(time.Second)), true)
	elapsed := time.Since(start).Seconds()

	// Go heap objects allocated per request (runtime.MemStats.Mallocs) over sequential
	// requests, after 100 uncounted ones: Go's own allocator, not malloc calls.
	var goMallocs interface{}
	if *allocRequests > 0 {
		failed := false
		for i := 0; i < 100; i++ {
			if _, err := get(0); err != nil {
				failed = true
			}
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for i := 0; i < *allocRequests; i++ {
			if _, err := get(0); err != nil {
				failed = true
			}
		}
		runtime.ReadMemStats(&after)
		if failed {
			fmt.Println("warning: go: a request failed while counting allocations")
		} else {
			goMallocs = float64(after.Mallocs-before.Mallocs) / float64(*allocRequests)
		}
	}

	requests, errors := 0, 0
	var latencies []int64
	for _, r := range results {
		requests += r.requests
		errors += r.errors
		latencies = append(latencies, r.latencies...)
		if r.firstErr != nil && errors == r.errors {
			fmt.Printf("warning: go: requests failed; the first: %v\n", r.firstErr)
		}
	}
	sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
	percentile := func(p float64) interface{} {
		if len(latencies) == 0 {
			return nil
		}
		rank := int(p/100*float64(len(latencies)) + 0.999999999)
		if rank < 1 {
			rank = 1
		}
		if rank > len(latencies) {
			rank = len(latencies)
		}
		return float64(latencies[rank-1]) / 1000
	}
	var rps interface{}
	if elapsed > 0 {
		rps = float64(requests) / elapsed
	}
	line, _ := json.Marshal(map[string]interface{}{
		"client":                     "go",
		"concurrency":                *concurrency,
		"requests":                   requests,
		"errors":                     errors,
		"seconds":                    elapsed,
		"rps":                        rps,
		"p50_us":                     percentile(50),
		"p99_us":                     percentile(99),
		"go_heap_allocs_per_request": goMallocs,
		"gomaxprocs":                 runtime.GOMAXPROCS(0),
	})
	fmt.Printf("BENCH_RESULT %s\n", line)
	for _, c := range clients {
		c.CloseIdleConnections()
	}
}
