// Command gateway is the demo API gateway: it serves the built module and the
// demo page, and fronts a fake API whose behaviour can be switched at run
// time. It counts the requests that reach it, per path: that count is the
// ground truth of the end-to-end tests ("the circuit kept the network quiet").
//
//	go run ./demo/gateway -addr 127.0.0.1:8080
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address (loopback only)")
	root := flag.String("root", ".", "repository root (serves dist/, build/demo/ and demo/web/)")
	data := flag.String("data", "", "where the orders database lives (default: ROOT/build/data)")
	flag.Parse()
	if *data == "" {
		*data = filepath.Join(*root, "build", "data")
	}

	gateway, err := NewServer(Dirs{
		Dist: filepath.Join(*root, "dist"),
		App:  filepath.Join(*root, "build", "demo"),
		Web:  filepath.Join(*root, "demo", "web"),
		// build/bench holds the bench pages next to the floor program they load.
		Bench: filepath.Join(*root, "build", "bench"),
		Data:  *data,
	})
	if err != nil {
		log.Fatal(err)
	}
	defer gateway.Close()
	srv := &http.Server{Handler: gateway}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	// The e2e harness reads this line to find the port when -addr ends in :0.
	fmt.Printf("demo: http://%s/\n", ln.Addr())

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		_ = srv.Shutdown(context.Background())
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
}
