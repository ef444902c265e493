package cli

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/cordonsh/cordon/decide"
	"github.com/cordonsh/cordon/internal/printable"
	"github.com/cordonsh/cordon/platform"
)

// runExplained is cordon run --explain-denials: CMD runs as a child,
// confined by a profile whose denials carry a tag of this run, while the
// system log is read; then the denials of its sandbox are listed.
func runExplained(conf *decide.Confinement, path string, argv []string, stderr io.Writer) int {
	var buf [8]byte
	rand.Read(buf[:])
	tag := "cordon-" + hex.EncodeToString(buf[:])
	b, ok := platform.TagDenials(conf.Backend, tag)
	if !ok {
		fmt.Fprintf(stderr, "cordon run: --explain-denials reads the refusals macOS's Seatbelt writes to the system log; the %s backend writes none there; nothing was run\n", conf.Backend.Name())
		return 126
	}
	w, err := platform.WatchDenials(tag)
	if err != nil {
		fmt.Fprintf(stderr, "cordon run: %v; nothing was run\n", err)
		return 126
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGHUP, syscall.SIGTERM)
	defer signal.Stop(sigs)
	c, err := b.Start(path, argv, conf.Policy.Env, os.Stdin)
	if err != nil {
		w.Stop(0)
		fmt.Fprintf(stderr, "cordon run: cannot run %s: %v\n", argv[0], err)
		return 126
	}
	go func() {
		for s := range sigs {
			c.Forward(s)
		}
	}()
	code, err := c.Wait()
	if err != nil {
		fmt.Fprintf(stderr, "cordon run: %v\n", err)
	}
	denials := w.Stop(c.Pid())
	if len(denials) == 0 {
		fmt.Fprintln(stderr, "cordon: the sandbox refused nothing that the system log recorded")
		return code
	}
	fmt.Fprintf(stderr, "cordon: the sandbox refused (%d):\n", len(denials))
	for _, d := range denials {
		fmt.Fprintf(stderr, "  %s\n", printable.String(d.String()))
	}
	return code
}
