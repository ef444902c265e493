package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/cordonsh/cordon/decide"
	"github.com/cordonsh/cordon/internal/printable"
	"github.com/cordonsh/cordon/shim"
	"github.com/cordonsh/cordon/snapshot"
)

func undoCommand() *command {
	return &command{
		name:  "undo",
		args:  "[--list [--json]] [--force] [ID] | --forget ID",
		short: "bring back what a command destroyed",
		long: `Before a command deletes, overwrites or throws away workspace content git
cannot restore, cordon keeps a copy (a snapshot); after each command in a git
workspace it also keeps the untracked and modified files that changed, so
that what a later command replaces can be brought back too.

--list shows the snapshots, newest first: id, time, the command, the paths
and their sizes. cordon undo ID puts what snapshot ID saved back in its
place; without ID, the newest snapshot of the current directory's
workspace. A path that changed after the command ran is left as it is and
reported, unless --force. Stash entries and branches are stored again.
Nothing is deleted. The exit status is 1 when something was not restored.

--forget ID removes snapshot ID from the store: past the store's budget,
the oldest snapshots go first, but those that keep a branch or stash a
command removed go last, until a person lets them go this way.

cordon undo is for people: the rules deny it to agents, and it is refused
inside a cordon sandbox.`,
		run: runUndo,
	}
}

func runUndo(c *command, args []string, stdout, stderr io.Writer) int {
	fs := c.flags()
	list := fs.Bool("list", false, "list the snapshots")
	asJSON := fs.Bool("json", false, "with --list: one JSON object per snapshot, one per line")
	force := fs.Bool("force", false, "overwrite paths that changed after the command")
	forget := fs.Bool("forget", false, "remove snapshot ID from the store")
	if code, ok := c.parse(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 1 || *list && fs.NArg() > 0 {
		return c.usageError(stderr, "unexpected arguments %q", fs.Args())
	}
	if *forget && (fs.NArg() != 1 || *list || *force) {
		return c.usageError(stderr, "--forget takes one snapshot id, and nothing else")
	}
	dir, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "cordon undo: cannot read the current directory: %v\n", err)
		return exitError
	}
	env := os.Environ()
	store, err := shim.UndoStore(dir, env)
	if err != nil {
		fmt.Fprintf(stderr, "cordon undo: %v\n", err)
		return exitError
	}
	ws, err := decide.Workspace(dir, os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "cordon undo: %v\n", err)
		return exitError
	}
	if ws.Dir != "" {
		store.WaitPending(ws.Dir) // the guard's save of the last command
	}
	if *forget {
		if err := store.Forget(fs.Arg(0)); err != nil {
			fmt.Fprintf(stderr, "cordon undo: %v\n", err)
			return exitError
		}
		fmt.Fprintf(stdout, "snapshot %s forgotten\n", fs.Arg(0))
		return exitOK
	}
	all, err := store.List()
	if err != nil {
		fmt.Fprintf(stderr, "cordon undo: %v\n", err)
		return exitError
	}
	if *list {
		return undoList(store, all, *asJSON, stdout)
	}
	var m *snapshot.Manifest
	if fs.NArg() == 1 {
		if m, err = store.Get(fs.Arg(0)); err != nil {
			fmt.Fprintf(stderr, "cordon undo: %v\n", err)
			return exitError
		}
	} else {
		for _, s := range all {
			if s.Workspace == ws.Dir {
				m = s
				break
			}
		}
		// A workspace removed and made again may not be taken for one
		// now (an empty directory): the newest snapshot of a workspace
		// the current directory is in.
		for _, s := range all {
			if m == nil && s.Workspace != "" && (dir == s.Workspace || strings.HasPrefix(dir, s.Workspace+string(filepath.Separator))) {
				m = s
			}
		}
		if m == nil {
			fmt.Fprintf(stderr, "cordon undo: no snapshot of the workspace %s (cordon undo --list shows them all)\n", printable.String(ws.Dir))
			return exitError
		}
	}
	fmt.Fprintf(stdout, "snapshot %s, %s, before: %s\n", m.ID, m.Time.Local().Format("2006-01-02 15:04:05"), oneLine(m.Command))
	code := exitOK
	for _, r := range store.Restore(m, snapshot.RestoreOptions{Force: *force, Git: shim.GitRestorer(dir, env), Vet: shim.UndoVet(dir, env, *force)}) {
		what := printable.String(r.Entry.Path)
		switch r.Entry.Type {
		case snapshot.TypeStash:
			what = fmt.Sprintf("stash entry %s (%s) in %s", short(r.Entry.Commit), printable.String(r.Entry.Message), what)
		case snapshot.TypeBranch:
			what = fmt.Sprintf("branch %s at %s in %s", printable.String(r.Entry.Ref), short(r.Entry.Commit), what)
		case snapshot.TypeIndexTree:
			what = fmt.Sprintf("the index of %s (what is staged), tree %s", printable.String(filepath.Dir(filepath.Dir(r.Entry.Path))), short(r.Entry.Commit))
		case snapshot.TypeDir:
			what += "/"
		case snapshot.TypeObjects:
			what = fmt.Sprintf("%d object files of the repository in %s", r.Entry.Size, what)
		case snapshot.TypeCheckout:
			what = fmt.Sprintf("%d tracked files, written from the restored index, in %s", r.Entry.Size, what)
		case snapshot.TypeMoved:
			what = fmt.Sprintf("%s: it was no directory; moved to %s", what, printable.String(r.Entry.Target))
		}
		line := fmt.Sprintf("  %-10s %s", r.Action, what)
		if r.Why != "" {
			line += ": " + printable.String(r.Why)
		}
		fmt.Fprintln(stdout, line)
		if r.Action == snapshot.Kept || r.Action == snapshot.Failed {
			code = exitError
		}
	}
	return code
}

func undoList(store *snapshot.Store, all []*snapshot.Manifest, asJSON bool, stdout io.Writer) int {
	if asJSON {
		for _, m := range all {
			b, _ := json.Marshal(m)
			fmt.Fprintf(stdout, "%s\n", b)
		}
		return exitOK
	}
	for _, u := range store.Unkept() {
		fmt.Fprintf(stdout, "not kept in %s (the next command that loses it is not undone):\n", printable.String(u.Workspace))
		for i, w := range u.What {
			if i == 10 {
				fmt.Fprintf(stdout, "          ... and %d more (the log: %s)\n", len(u.What)-10, printable.String(filepath.Join(store.Dir, "guard.log")))
				break
			}
			fmt.Fprintf(stdout, "          %s\n", printable.String(w))
		}
	}
	if len(all) == 0 {
		fmt.Fprintln(stdout, "no snapshots")
		return exitOK
	}
	for _, m := range all {
		fmt.Fprintf(stdout, "%s  %s  %-10s %s\n", m.ID, m.Time.Local().Format("2006-01-02 15:04:05"), m.Kind, oneLine(m.Command))
		fmt.Fprintf(stdout, "          in %s, %s\n", printable.String(m.Workspace), snapshot.Human(m.Size))
		shown := 0
		for _, e := range m.Entries {
			line := entryLine(store, m, e)
			if line == "" {
				continue
			}
			if shown == 10 {
				fmt.Fprintf(stdout, "          ... and more (%d entries in all)\n", len(m.Entries))
				break
			}
			shown++
			fmt.Fprintf(stdout, "          %s\n", line)
		}
	}
	return exitOK
}

// entryLine is how --list shows one entry of m: the repository's own
// files by what they mean (a branch and its commit, the stash's entries).
func entryLine(store *snapshot.Store, m *snapshot.Manifest, e snapshot.Entry) string {
	switch e.Type {
	case snapshot.TypeFile:
		if rel, err := filepath.Rel(filepath.Join(m.Workspace, ".git"), e.Path); err == nil && !strings.HasPrefix(rel, "..") {
			return "git: " + gitLine(store, filepath.ToSlash(rel), e)
		}
		return fmt.Sprintf("%s (%s)", printable.String(e.Path), snapshot.Human(e.Size))
	case snapshot.TypeDir:
		return printable.String(e.Path) + "/"
	case snapshot.TypeSymlink:
		return fmt.Sprintf("%s -> %s", printable.String(e.Path), printable.String(e.Target))
	case snapshot.TypeStash:
		return fmt.Sprintf("stash %s %s", short(e.Commit), printable.String(e.Message))
	case snapshot.TypeBranch:
		return fmt.Sprintf("branch %s at %s", printable.String(e.Ref), short(e.Commit))
	case snapshot.TypeIndexTree:
		return "git: the index (what is staged), tree " + short(e.Commit)
	case snapshot.TypeObject:
		rel, _ := filepath.Rel(filepath.Join(m.Workspace, ".git"), e.Path)
		return "git: " + printable.String(filepath.ToSlash(rel)) + ", an object file changed in place (its copy is kept)"
	}
	return ""
}

// gitLine describes a file of a repository's own data as it was saved.
func gitLine(store *snapshot.Store, rel string, e snapshot.Entry) string {
	data, err := store.Content(e, 1<<20)
	if err != nil {
		return printable.String(rel)
	}
	text := strings.TrimSpace(string(data))
	lines := func() int { return strings.Count(text, "\n") + 1 }
	switch {
	case rel == "HEAD":
		return "HEAD was " + printable.String(strings.TrimPrefix(text, "ref: "))
	case rel == "logs/refs/stash":
		return fmt.Sprintf("the stash, %d entries", lines())
	case strings.HasPrefix(rel, "logs/"):
		return fmt.Sprintf("the reflog of %s, %d entries", printable.String(strings.TrimPrefix(rel, "logs/")), lines())
	case rel == "refs/stash":
		return "the stash, its newest entry " + short(text)
	case strings.HasPrefix(rel, "refs/"):
		return fmt.Sprintf("%s at %s", printable.String(rel), short(text))
	case rel == "packed-refs":
		n := 0
		for l := range strings.SplitSeq(text, "\n") {
			if l != "" && l[0] != '#' && l[0] != '^' {
				n++
			}
		}
		return fmt.Sprintf("packed-refs, %d references", n)
	case rel == "index":
		return "the index (what is staged), " + snapshot.Human(e.Size)
	}
	return fmt.Sprintf("%s (%s)", printable.String(rel), snapshot.Human(e.Size))
}

// oneLine is a command on one line, at most 100 characters.
func oneLine(s string) string {
	s = printable.String(strings.ReplaceAll(s, "\n", "; "))
	if len(s) > 100 {
		s = s[:97] + "..."
	}
	return s
}

func short(c string) string { return c[:min(len(c), 12)] }
