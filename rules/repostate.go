package rules

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/cordonsh/cordon/parse"
)

// The repository's state as the script itself changes it. The state is
// read before the script runs; what its commands do to the stash, the
// branches and the work tree, in order, is followed here, so that a
// later command is judged against the state the earlier ones leave
// (git stash && git stash drop drops the change just stashed). What the
// script does that is not known makes the state unknown, never clean.

// scriptRepo is the script's repository as its commands change it.
type scriptRepo struct {
	j *judging

	stashed []string // entries the script pushed, newest last: "stash" (work), "unknown" or "" (none made)
	popped  int      // entries of the real stash the script took off
	staged  bool     // untracked files were added to the index (git add -A)
	saved   bool     // the work tree's changes were saved (stash, commit -a)
	savers  []int    // the commands that saved them
	dirty   string   // changes the script brought back into the work tree: "uncommitted", "unknown" or ""

	cur      string           // the branch checked out; "" when not known
	curRead  bool             // cur was read from the repository (only when a branch matters)
	branches map[string][]int // the commits the script made that each branch holds
	pushed   map[int]bool     // commits the script pushed
	created  map[string]bool  // branches the script made (they have no upstream to push to)
	commits  int
	lost     bool // commits were made on a branch not known
}

// scriptStates walks the effects in order, sets the state of each loss
// that depends on what an earlier command did, and turns a discard of
// saved changes into discard-saved.
func (j *judging) scriptStates() {
	var r *scriptRepo
	start := func() {
		if r == nil {
			r = &scriptRepo{j: j, branches: map[string][]int{}, pushed: map[int]bool{}, created: map[string]bool{}}
		}
	}
	for i := range j.effects {
		if j.set.unknownSub(&j.ctx.Env, &j.res.Commands[i]) {
			start()
			r.unknown()
		}
		for n := range j.effects[i] {
			e := &j.effects[i][n]
			if scriptEffects[e.Kind] {
				start()
			}
			if writesHead(e) {
				// echo 'ref: refs/heads/main' > .git/HEAD: the branch
				// checked out after it is not known.
				start()
				r.cur, r.curRead = "", true
			}
			if r != nil {
				r.step(e)
			}
		}
	}
}

// writesHead reports whether e writes or removes a repository's HEAD
// file (.git/HEAD), which names the branch checked out.
func writesHead(e *Effect) bool {
	switch e.Kind {
	case "overwrite", "modify", "rewrite", "move", "delete":
		return strings.HasSuffix(e.Path, "/.git/HEAD")
	}
	return false
}

// unknown records a command whose effect on the repository is not known
// (git "$op"): it may have stashed, committed or switched anything.
func (r *scriptRepo) unknown() {
	r.stashed = append(r.stashed, "unknown")
	r.dirty, r.saved, r.lost = "unknown", false, true
	r.savers = nil
}

// unknownSub reports whether c names a subcommand computed at run time
// (git "$op" drop): what it does is not known.
func (s *Set) unknownSub(e *Env, c *parse.Command) bool {
	if e.Windows || len(c.Args) == 0 {
		return false
	}
	cmd, rest := s.command(c.Name()), c.Args[1:]
	for cmd != nil && cmd.subs != nil {
		a := split(cmd.spec, rest, false)
		if len(a.operands) == 0 || a.opIdx[0] < 0 {
			return false
		}
		if !a.operands[0].IsKnown() {
			return true
		}
		next := cmd.subs[a.operands[0].Text]
		if next == nil {
			next = cmd.subs["*"]
		}
		cmd, rest = next, rest[a.opIdx[0]+1:]
	}
	return false
}

// scriptEffects are the effects that change or depend on the state
// the script leaves.
var scriptEffects = map[string]bool{
	"stage-all": true, "push-stash": true, "checkpoint": true, "commit": true, "pop-stash": true,
	"drop-stash": true, "discard-changes": true, "create-branch": true, "branch-from": true,
	"switch-branch": true, "merge-branch": true, "push-branch": true, "delete-branch": true,
	"push-to": true, "rename-branch": true,
}

// readHead sets cur to the branch checked out before the script, once,
// when a branch first matters ("" when it cannot be read).
func (r *scriptRepo) readHead() {
	if r.curRead {
		return
	}
	r.curRead = true
	if r.j.ctx.Repo == nil || r.j.ctx.Env.Foreign {
		return
	}
	if b, err := r.j.ctx.Repo.Head(); err == nil {
		r.cur = b
	}
}

// save records that command i saved the work tree's changes.
func (r *scriptRepo) save(i int) {
	r.saved, r.dirty = true, ""
	r.savers = append(r.savers, i)
}

// savedFor reports whether one of the commands that saved the work ran
// and succeeded before command i: not when i runs only because that
// command failed (git stash || git reset --hard).
func (r *scriptRepo) savedFor(i int) bool {
	var failed []int
	if i >= 0 && i < len(r.j.res.Commands) {
		failed = r.j.res.Commands[i].AfterFailure
	}
	for _, k := range r.savers {
		if !slices.Contains(failed, k) {
			return true
		}
	}
	return false
}

// step applies effect e, or sets its state.
func (r *scriptRepo) step(e *Effect) {
	switch e.Kind {
	case "commit", "create-branch", "branch-from", "switch-branch", "merge-branch", "push-branch", "delete-branch", "push-to", "rename-branch":
		r.readHead()
	}
	switch e.Kind {
	case "stage-all":
		r.staged = true
	case "push-stash":
		r.stashed = append(r.stashed, r.workState())
		r.save(e.Cmd)
	case "checkpoint":
		r.save(e.Cmd)
	case "commit":
		if r.staged {
			r.save(e.Cmd)
		}
		if r.cur == "" {
			r.lost = true
			break
		}
		r.commits++
		r.branches[r.cur] = append(r.branches[r.cur], r.commits)
	case "pop-stash":
		// The entry's changes are back in the work tree only (git stash
		// apply leaves them in the stash too).
		switch r.stashTop() {
		case "stash":
			r.dirty, r.saved = "uncommitted", false
			r.savers = nil
		case "absent", "":
		default:
			r.dirty, r.saved = cmpOr(r.dirty, "unknown"), false
			r.savers = nil
		}
		r.takeTop()
	case "drop-stash":
		if len(r.stashed) > 0 || r.popped > 0 {
			// An entry the script made, or one below those it took off.
			e.State = cmpOr(r.stashTop(), "absent")
		}
		r.takeTop()
	case "discard-changes":
		switch {
		case r.dirty != "":
			e.State = r.dirty
		case r.saved && r.savedFor(e.Cmd):
			e.Kind = "discard-saved"
		}
	case "create-branch":
		r.branches[e.Raw] = slices.Clone(r.branches[r.cur])
		r.created[e.Raw] = true
		r.cur = r.ref(e.Raw)
	case "branch-from":
		// The new branch (the command's create-branch, just before)
		// starts at this commit, not at HEAD.
		if r.cur != "" {
			r.branches[r.cur] = slices.Clone(r.branches[r.ref(e.Raw)])
		}
	case "switch-branch":
		c := &r.j.res.Commands[e.Cmd]
		if afterDashDash(c, e.Raw) {
			break // git checkout -- FILE: a path, not a branch
		}
		r.j.ctx.Env.of(c)
		if p := r.j.ctx.Env.resolve(e.Raw, c.Dir, false); p != "" && exists(p) && r.branches[e.Raw] == nil {
			// git checkout NAME, a file and maybe a branch too (git
			// takes the branch): which one is not known.
			r.cur = ""
			break
		}
		r.cur = r.ref(e.Raw)
	case "rename-branch":
		r.rename(e)
	case "push-to":
		r.recordHead(e.Cmd)
	case "merge-branch":
		if r.cur != "" {
			r.branches[r.cur] = union(r.branches[r.cur], r.branches[r.ref(e.Raw)])
		}
	case "push-branch":
		r.recordHead(e.Cmd)
		// git push REMOTE SRC[:DST]; a bare git push pushes the branch
		// checked out to its upstream, which a branch the script made
		// has not (:DST deletes, and pushes nothing).
		src, _, _ := strings.Cut(strings.TrimPrefix(e.Raw, "+"), ":")
		if e.Raw == "" && r.created[r.cur] || strings.HasPrefix(e.Raw, ":") {
			break
		}
		for _, c := range r.branches[r.ref(src)] {
			r.pushed[c] = true
		}
	case "delete-branch":
		e.State = r.branchLoss(e.Raw)
		delete(r.branches, e.Raw)
	}
}

// recordHead records the branch checked out when push command cmd runs,
// for every push (git push origin names no branch: it pushes this one).
func (r *scriptRepo) recordHead(cmd int) {
	if r.j.heads == nil {
		r.j.heads = map[int]scriptHead{}
	}
	r.j.heads[cmd] = scriptHead{branch: r.cur, created: r.created[r.cur], made: maps.Clone(r.created)}
}

// rename follows git branch -m: with one operand (NEW) the branch checked
// out is renamed; with two (OLD NEW), OLD is, and the branch checked out
// is NEW when OLD was it, not known when OLD cannot be told.
func (r *scriptRepo) rename(e *Effect) {
	var names []string
	for _, o := range r.j.effects[e.Cmd] {
		if o.Kind == "rename-branch" {
			names = append(names, o.Raw)
		}
	}
	if len(names) == 0 || e.Raw != names[len(names)-1] {
		return // not the last operand yet
	}
	switch {
	case len(names) == 1:
		r.cur = r.ref(e.Raw)
	case len(names) == 2 && r.cur != "" && r.ref(names[0]) == r.cur:
		r.cur = r.ref(e.Raw)
	case len(names) == 2 && r.ref(names[0]) != "":
	default:
		r.cur = ""
	}
}

// afterDashDash reports whether word is among command c's arguments
// after "--" (git checkout -- FILE).
func afterDashDash(c *parse.Command, word string) bool {
	dd := slices.IndexFunc(c.Args, func(w parse.Word) bool { return w.Text == "--" })
	if dd < 0 {
		return false
	}
	return slices.ContainsFunc(c.Args[dd+1:], func(w parse.Word) bool { return w.Text == word })
}

// workState is what a stash made now holds: "stash" when the work tree
// has changes git stash takes (modified files; untracked ones once
// added, or with -u), "" when it has none (git makes no entry), else
// "unknown".
func (r *scriptRepo) workState() string {
	switch r.dirty {
	case "uncommitted":
		return "stash"
	case "unknown":
		return "unknown"
	}
	repo := r.j.ctx.Repo
	if repo == nil || r.j.ctx.Env.Foreign {
		return "unknown"
	}
	changes, err := r.j.repoChanges()
	if err != nil {
		return "unknown"
	}
	for _, ch := range changes {
		if ch.Kind == Modified || ch.Kind == Untracked && r.staged {
			return "stash"
		}
	}
	return ""
}

// stashTop is what the newest stash entry holds: "stash" (work), "absent"
// (no entry), "" or "unknown".
func (r *scriptRepo) stashTop() string {
	for len(r.stashed) > 0 && r.stashed[len(r.stashed)-1] == "" {
		r.stashed = r.stashed[:len(r.stashed)-1] // no entry was made
	}
	if len(r.stashed) > 0 {
		return r.stashed[len(r.stashed)-1]
	}
	if r.popped == 0 {
		return r.j.stashState()
	}
	if r.j.ctx.Repo == nil || r.j.ctx.Env.Foreign {
		return "unknown"
	}
	n, err := r.j.ctx.Repo.Stashes()
	switch {
	case err != nil:
		return "unknown"
	case n > r.popped:
		return "stash"
	}
	return "absent"
}

// takeTop removes the newest stash entry.
func (r *scriptRepo) takeTop() {
	if len(r.stashed) > 0 {
		r.stashed = r.stashed[:len(r.stashed)-1]
		return
	}
	r.popped++
}

// branchLoss is the state deleting branch loses of what the script did:
// "unmerged" for commits the script made that no other branch holds and
// that were not pushed, "unknown" when the script committed where it
// could not follow, "" (the repository's own state decides) otherwise.
func (r *scriptRepo) branchLoss(branch string) string {
	if r.lost || strings.Contains(branch, "?") {
		return "unknown"
	}
	for _, c := range r.branches[branch] {
		if r.pushed[c] {
			continue
		}
		held := false
		for b, cs := range r.branches {
			if b != branch && slices.Contains(cs, c) {
				held = true
				break
			}
		}
		if !held {
			return "unmerged"
		}
	}
	return ""
}

// ref is the branch a name stands for: HEAD and @ are the current one;
// "" when it is not known (- is the one checked out before).
func (r *scriptRepo) ref(name string) string {
	switch {
	case name == "HEAD" || name == "@" || name == "":
		return r.cur
	case name == "-" || strings.HasPrefix(name, "@{") || strings.Contains(name, "?"):
		return ""
	case strings.HasPrefix(name, "refs/heads/"):
		return strings.TrimPrefix(name, "refs/heads/")
	case strings.HasPrefix(name, "refs/"):
		return ""
	}
	return name
}

func union(a, b []int) []int {
	out := slices.Clone(a)
	for _, c := range b {
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return !errors.Is(err, fs.ErrNotExist)
}
