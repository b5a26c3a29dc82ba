// Go's net/http client as a peer in Fiber's transfer benchmark
// (Scripts/bench-transfer). Standard library only.
//
//	transfer -mode download -url URL -path DEST [-ca PEM]   GET, the body copied into DEST, fsynced
//	transfer -mode upload -url URL -path FILE [-ca PEM]     PUT, FILE streamed as the body with its length
//
// It prints one line `TRANSFER_RESULT {json}` with bytes, seconds and MB/s.
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
	"time"
)

func main() {
	mode := flag.String("mode", "download", "download or upload")
	url := flag.String("url", "", "the URL")
	path := flag.String("path", "", "the file to write (download) or read (upload)")
	caFile := flag.String("ca", "", "trust the CA certificates in this PEM file (https)")
	flag.Parse()

	transport := http.DefaultTransport.(*http.Transport).Clone()
	if *caFile != "" {
		pem, err := os.ReadFile(*caFile)
		if err != nil {
			fail(err)
		}
		pool := x509.NewCertPool()
		pool.AppendCertsFromPEM(pem)
		transport.TLSClientConfig = &tls.Config{RootCAs: pool}
	}
	client := &http.Client{Transport: transport}

	// Warm up: a connection (and TLS) before the clock starts, as the other clients do.
	if response, err := client.Head(*url); err == nil {
		response.Body.Close()
	}

	start := time.Now()
	var bytes int64
	switch *mode {
	case "download":
		response, err := client.Get(*url)
		if err != nil {
			fail(err)
		}
		file, err := os.Create(*path)
		if err != nil {
			fail(err)
		}
		bytes, err = io.Copy(file, response.Body)
		response.Body.Close()
		if err != nil {
			fail(err)
		}
		if err = file.Sync(); err != nil {
			fail(err)
		}
		file.Close()
	case "upload":
		file, err := os.Open(*path)
		if err != nil {
			fail(err)
		}
		info, _ := file.Stat()
		request, _ := http.NewRequest("PUT", *url, file)
		request.ContentLength = info.Size()
		response, err := client.Do(request)
		if err != nil {
			fail(err)
		}
		io.Copy(io.Discard, response.Body)
		response.Body.Close()
		if response.StatusCode/100 != 2 {
			fail(fmt.Errorf("upload answered %d", response.StatusCode))
		}
		bytes = info.Size()
	default:
		fail(fmt.Errorf("unknown mode %s", *mode))
	}
	seconds := time.Since(start).Seconds()
	line, _ := json.Marshal(map[string]any{"client": "go", "mode": *mode, "bytes": bytes, "seconds": seconds,
		"mb_per_s": float64(bytes) / seconds / 1e6})
	fmt.Println("TRANSFER_RESULT " + string(line))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "error:", err)
	os.Exit(2)
}
