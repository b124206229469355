// Command converge-echo is the workload that converge runs in real
// containers: a tiny HTTP server that says which pod answered.
//
//   - It listens on $POD_IP:$PORT (defaults 127.0.0.1 and 8080).
//   - Every request except /healthz gets one line of JSON,
//     {"pod":"...","ip":"...","count":N}, where N counts those requests.
//   - /healthz answers 200 "ok" and is not counted, so probes do not skew N.
//   - SIGTERM (or SIGINT) shuts the server down gracefully and exits 0.
//     ECHO_IGNORE_SIGTERM=1 makes it ignore SIGTERM instead, so a runtime's
//     grace period and SIGKILL can be exercised.
//   - It logs one line when it starts listening.
//
// It uses only the standard library and builds statically (CGO_ENABLED=0), so
// it runs in an image holding nothing but its own binary.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"
)

// shutdownGrace bounds how long in-flight requests may take after SIGTERM;
// the runtime's own grace period is normally longer.
const shutdownGrace = 5 * time.Second

func main() {
	if err := run(os.Getenv, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "converge-echo: %v\n", err)
		os.Exit(1)
	}
}

// config is what the process reads from its environment.
type config struct {
	pod, ip, port string
	ignoreSIGTERM bool
}

func loadConfig(getenv func(string) string) config {
	c := config{pod: getenv("POD_NAME"), ip: getenv("POD_IP"), port: getenv("PORT")}
	if c.ip == "" {
		c.ip = "127.0.0.1"
	}
	if c.port == "" {
		c.port = "8080"
	}
	c.ignoreSIGTERM = getenv("ECHO_IGNORE_SIGTERM") == "1"
	return c
}

func run(getenv func(string) string, logw io.Writer) error {
	cfg := loadConfig(getenv)
	stop := make(chan os.Signal, 1)
	if cfg.ignoreSIGTERM {
		signal.Ignore(syscall.SIGTERM)
		signal.Notify(stop, os.Interrupt)
	} else {
		signal.Notify(stop, syscall.SIGTERM, os.Interrupt)
	}

	ln, err := net.Listen("tcp", net.JoinHostPort(cfg.ip, cfg.port))
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: newHandler(cfg), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(logw, "converge-echo: pod=%q listening on %s\n", cfg.pod, ln.Addr())

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-stop:
	}
	ctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(ctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// reply is the one line of JSON every counted request gets.
type reply struct {
	Pod   string `json:"pod"`
	IP    string `json:"ip"`
	Count int64  `json:"count"`
}

func newHandler(cfg config) http.Handler {
	var count atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "ok\n")
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		// Encode appends the newline that makes this "one line".
		json.NewEncoder(w).Encode(reply{Pod: cfg.pod, IP: cfg.ip, Count: count.Add(1)})
	})
	return mux
}
