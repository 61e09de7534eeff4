// Command fakemodel serves the fake OpenAI-compatible model that clawtap's
// end-to-end tests point a real OpenClaw gateway at, for running a gateway
// by hand the same way:
//
//	go run ./internal/fakemodel/cmd/fakemodel -listen 127.0.0.1:18900 -log requests.jsonl
//
// then set the gateway's provider baseUrl to http://127.0.0.1:18900/v1.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/clawtap/clawtap/internal/fakemodel"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:18900", "address to serve on (keep it loopback)")
	logPath := flag.String("log", "", "append one JSON line per model request to this file")
	delay := flag.Duration("token-delay", 60*time.Millisecond, "delay between tokens of the default reply")
	flag.Parse()

	srv := &fakemodel.Server{TokenDelay: *delay}
	if *logPath != "" {
		f, err := os.OpenFile(*logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			log.Fatal(err)
		}
		var mu sync.Mutex
		enc := json.NewEncoder(f)
		srv.OnRequest = func(r fakemodel.Request) {
			mu.Lock()
			defer mu.Unlock()
			_ = enc.Encode(r)
		}
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("fake model listening on http://%s/v1\n", ln.Addr())
	log.Fatal(http.Serve(ln, srv))
}
