// Command benchserve is `make bench-serve`: it runs `tradedeck serve
// --live` (the binary given) against a simulated venue in this process
// and drives it with real SSH viewers (serve/loadgen), for each scenario
// of viewers and market rate, printing a markdown table:
//
//	go run ./tools/benchserve -bin bin/tradedeck -runs 1:calm,10:calm,50:calm,50:busy
//
// The server runs as its own process, so its CPU and RSS are its own;
// the venue's Websocket connections are counted by the simulator.
// Loopback only; every wait is bounded.
package main

import (
	"bufio"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"tradedeck/serve/loadgen"
	"tradedeck/sim"
	"tradedeck/sim/market"
)

func main() {
	bin := flag.String("bin", "bin/tradedeck", "tradedeck binary to serve with")
	label := flag.String("label", "", "design label in the table (default: the binary's name)")
	runs := flag.String("runs", "1:calm,10:calm,50:calm,50:busy", "scenarios: viewers:rate, comma-separated (rate: calm, busy, stress)")
	warmup := flag.Duration("warmup", 3*time.Second, "after the viewers' first frames, before measuring")
	measure := flag.Duration("measure", 10*time.Second, "measuring window")
	flag.Parse()
	if *label == "" {
		*label = filepath.Base(*bin)
	}
	var results []loadgen.Result
	for _, sc := range strings.Split(*runs, ",") {
		n, rate, err := parseScenario(sc)
		if err != nil {
			fatal(err)
		}
		fmt.Fprintf(os.Stderr, "benchserve: %d viewers, %s market...\n", n, rate)
		r, err := scenario(*bin, n, rate, loadgen.Options{Sessions: n, Warmup: *warmup, Measure: *measure, Probes: 5, Timeout: 60 * time.Second})
		if err != nil {
			fatal(fmt.Errorf("%s: %w", sc, err))
		}
		results = append(results, r)
		fmt.Fprint(os.Stderr, loadgen.Table(*label, []loadgen.Result{r}))
	}
	fmt.Print(loadgen.Table(*label, results))
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "benchserve:", err)
	os.Exit(1)
}

func parseScenario(s string) (int, string, error) {
	ns, rate, ok := strings.Cut(strings.TrimSpace(s), ":")
	n, err := strconv.Atoi(ns)
	if !ok || err != nil || n < 1 || n > 500 {
		return 0, "", fmt.Errorf("scenario %q: want viewers:rate, 1..500 viewers", s)
	}
	if _, err := market.ParseRate(rate); err != nil {
		return 0, "", err
	}
	return n, rate, nil
}

// scenario starts a simulator and the server, runs the load, and stops
// both.
func scenario(bin string, n int, rate string, o loadgen.Options) (loadgen.Result, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, _ := market.ParseRate(rate)
	inst, err := sim.Start(ctx, sim.Options{Seed: 1, NoRateLimits: true, Living: sim.LivingOptions{Rate: r}})
	if err != nil {
		return loadgen.Result{}, err
	}
	defer inst.Close()
	dir, err := os.MkdirTemp("", "benchserve")
	if err != nil {
		return loadgen.Result{}, err
	}
	defer os.RemoveAll(dir)
	signer, err := writeFiles(dir, inst)
	if err != nil {
		return loadgen.Result{}, err
	}
	addr, err := freeAddr()
	if err != nil {
		return loadgen.Result{}, err
	}
	cmd := exec.Command(bin, "serve", "--live", "--listen", addr, "--max-sessions", "0",
		"--config", filepath.Join(dir, "config.toml"), "--authorized-keys", filepath.Join(dir, "authorized_keys"),
		"--host-key", filepath.Join(dir, "host_key"))
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+dir, "XDG_DATA_HOME="+dir,
		"TRADEDECK_API_KEY="+inst.Credentials.APIKey, "TRADEDECK_API_SECRET="+inst.Credentials.APISecret,
		"TRADEDECK_APPLICATION_ID="+inst.Credentials.ApplicationID)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return loadgen.Result{}, err
	}
	if err := cmd.Start(); err != nil {
		return loadgen.Result{}, err
	}
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	}()
	if err := waitListening(stderr, 30*time.Second); err != nil {
		return loadgen.Result{}, err
	}
	res, err := loadgen.Run(loadgen.Target{Addr: addr, Signer: signer, PID: cmd.Process.Pid,
		VenueConns: func() int { return inst.Streams.Stats().Connections }}, o)
	res.Market = rate
	return res, err
}

// writeFiles writes the config ([live] at the simulator) and an
// authorized_keys file with a fresh key, returned.
func writeFiles(dir string, inst *sim.Instance) (gossh.Signer, error) {
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(loadgen.LiveConfig(inst.Endpoints)), 0o600); err != nil {
		return nil, err
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	signer, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		return nil, err
	}
	return signer, os.WriteFile(filepath.Join(dir, "authorized_keys"), gossh.MarshalAuthorizedKey(signer.PublicKey()), 0o600)
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// waitListening reads the server's log until it listens; the rest of the
// log is drained so the server never blocks on it.
func waitListening(r interface{ Read([]byte) (int, error) }, timeout time.Duration) error {
	ready := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(r)
		var last string
		listening := false
		for sc.Scan() {
			last = sc.Text()
			if !listening && strings.Contains(last, "listening") {
				listening = true
				ready <- nil
			}
		}
		if !listening {
			ready <- errors.New("server exited: " + last)
		}
	}()
	select {
	case err := <-ready:
		return err
	case <-time.After(timeout):
		return errors.New("server did not start listening")
	}
}
