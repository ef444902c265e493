package guard

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cordonsh/cordon/gitkey"
	"github.com/cordonsh/cordon/platform"
)

// An operation git leaves stopped (a rebase at a conflict, a
// cherry-pick of several commits) keeps in the git directory what it
// will do when the person goes on with it (git rebase --continue), and
// some of that runs programs as hooks do: an "exec" line of the rebase's
// todo list, a merge strategy that is not git's own (git-merge-NAME, a
// path in the work tree when NAME holds a slash). What a command leaves
// there that would run a program the trusted state did not have is not
// left for the person's git: the whole operation's directory is moved to
// the quarantine (the branch stays where it was before it began).

// stepFiles are the files, relative to a git directory, that hold what
// git runs when a stopped operation goes on (git's sequencer.c).
var stepFiles = []string{
	"rebase-merge/git-rebase-todo",
	"rebase-merge/strategy",
	"sequencer/todo",
	"sequencer/opts",
}

// builtinStrategies are the merge strategies git runs itself.
var builtinStrategies = []string{"ort", "recursive", "resolve", "octopus", "ours", "subtree"}

// stepPatterns are the patterns of stepFiles in every git directory the
// ledger guards the configuration of.
func (b *book) stepPatterns() []string {
	var out []string
	for _, c := range b.l.Configs {
		if slices.Contains(b.l.Included, c) || filepath.Base(c) != "config" && filepath.Base(c) != "config.worktree" {
			continue
		}
		for _, f := range stepFiles {
			if p := filepath.Join(filepath.Dir(c), f); !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// checkSteps moves to the quarantine every stopped operation in which a
// command left a step that runs a program, and returns one line for
// each.
func (b *book) checkSteps(q *quarantine) []string {
	var lines []string
	now := snapshotConfigs(b.stepPatterns())
	var paths []string
	for p := range now {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	moved := map[string]bool{}
	for _, path := range paths {
		dir := filepath.Dir(path)
		if moved[dir] {
			continue
		}
		var before []byte
		if te := b.l.TrustedSteps[path]; te != nil {
			if e := now[path]; e.Kind == te.Kind && e.Sum == te.Sum && e.Sum != "" {
				continue
			}
			before = te.Data
		}
		why := b.runs(filepath.Base(path), readConfig(path), before)
		if why == "" {
			continue
		}
		moved[dir] = true
		line := "cordon: " + printable(dir) + ": a sandboxed command left a stopped operation that would run a program when you go on with it (" + printable(why) + ")"
		from := "/"
		if platform.Within(dir, b.l.Workspace) {
			from = b.l.Workspace
		}
		if what, ok := moveBelow(q, from, dir); ok {
			line += "; " + what + "; your branch is where it was before the operation began: git switch to it"
		} else {
			line += "; cordon could not move it aside: remove " + printable(dir) + " before you run git there"
		}
		lines = append(lines, line)
	}
	return lines
}

// runs says what in the step file name (its content data, nil when it
// cannot be read; before, its trusted content) runs a program that
// before did not, or "".
func (b *book) runs(name string, data, before []byte) string {
	if data == nil {
		return name + " is not a file cordon can read"
	}
	switch name {
	case "git-rebase-todo", "todo":
		old := execLines(before)
		for _, l := range execLines(data) {
			if !slices.Contains(old, l) {
				return name + ": " + l
			}
		}
	case "strategy":
		s := strings.TrimSpace(string(data))
		if s != strings.TrimSpace(string(before)) && !slices.Contains(builtinStrategies, s) {
			return "strategy " + s
		}
	case "opts":
		es, err := b.keyGuard(false).list(data)
		if err != nil {
			return "opts: " + err.Error()
		}
		var old []gitkey.Entry
		if before != nil {
			old, _ = b.keyGuard(false).list(before)
		}
		for _, e := range es {
			if e.Key == "options.strategy" && !slices.Contains(builtinStrategies, e.Value) && !slices.Contains(old, e) {
				return "strategy " + e.Value
			}
		}
	}
	return ""
}

// execLines are the lines of a todo list that run a shell command
// ("exec CMD", "x CMD"), as git reads them: blanks before the word and
// a carriage return at the end left out.
func execLines(data []byte) []string {
	var out []string
	for line := range bytes.SplitSeq(data, []byte{'\n'}) {
		l := strings.TrimRight(strings.TrimLeft(string(line), " \t"), "\r")
		word, _, _ := strings.Cut(l, " ")
		word, _, _ = strings.Cut(word, "\t")
		if strings.EqualFold(word, "exec") || strings.EqualFold(word, "x") {
			out = append(out, l)
		}
	}
	return out
}
