package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/cordonsh/cordon/decide"
	"github.com/cordonsh/cordon/rules"
	"github.com/cordonsh/cordon/rules/watch"
)

func rulesWatchCommand() *command {
	return &command{
		name:  "rules watch",
		short: "watch the rule files and report each reload or rejected edit",
		long: "Watches the rule directories of the workspace of the current directory, the ones a\n" +
			"piped shell (a shell reading its script from a pipe) reloads its rules from, and prints a line each time the\n" +
			"rules are reloaded, or the error (file:line) when an edit is rejected and the last\n" +
			"good rules stay in force. Runs until interrupted.",
		run: runRulesWatch,
	}
}

func runRulesWatch(c *command, args []string, stdout, stderr io.Writer) int {
	fs := c.flags()
	if code, ok := c.parse(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return c.usageError(stderr, "unexpected argument %q", fs.Arg(0))
	}
	dir, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "cordon rules watch: cannot read the current directory: %v\n", err)
		return exitError
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := watchRules(ctx, dir, os.Environ(), stdout); err != nil {
		fmt.Fprintf(stderr, "cordon rules watch: %v\n", err)
		return exitError
	}
	return exitOK
}

// watchRules prints the rules' reloads for a piped shell in dir until ctx
// ends. The error says why watching could not start.
func watchRules(ctx context.Context, dir string, env []string, stdout io.Writer) error {
	stdout = &lockedWriter{w: stdout}
	ws, err := decide.Workspace(dir, func(k string) string { return envValue(env, k) })
	if err != nil {
		return err
	}
	dirs, load := decide.RuleSource(ws.Dir, env)
	from := strings.Join(dirs, ", ")
	if from == "" {
		from = "the built-in rules alone"
	}
	loaded := func(set *rules.Set) string {
		return fmt.Sprintf("%d policies from %s", len(set.Policies()), from)
	}
	w, err := watch.New(dirs, load, func(e watch.Event) {
		switch e.Kind {
		case watch.Reloaded:
			fmt.Fprintf(stdout, "%s reloaded: %s\n", e.Time.Format("15:04:05.000"), loaded(e.Set))
		default:
			fmt.Fprintf(stdout, "%s %s\n", e.Time.Format("15:04:05.000"), e)
		}
	})
	if err != nil {
		return fmt.Errorf("cannot load the rules: %v", err)
	}
	defer w.Close()
	fmt.Fprintf(stdout, "watching: %s (until interrupted)\n", loaded(w.Current()))
	<-ctx.Done()
	return nil
}

// envValue is the value of key in env.
func envValue(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}

// A lockedWriter serialises writes from the watcher and the caller.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
