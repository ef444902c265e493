package rules

import (
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// gitHelpOption is one option line of git's -h output: its names and,
// after one space, the value it requires (--repo <repository>); a value
// it may take ([=<n>]) is glued to it, and it is no value option.
var gitHelpOption = regexp.MustCompile(`^ {4}((?:-[A-Za-z0-9], )?(?:--(?:\[no-\])?[a-z0-9-]+|-[A-Za-z0-9]))(\[[^ ]*\])?( [^ ]+)?(?: {2,}|$)`)

// gitValueOptions returns the options of git SUB that take the next word
// as their value, and those that do not, as git SUB -h lists them.
func gitValueOptions(t *testing.T, sub ...string) (value, flag []string) {
	out, _ := exec.Command("git", append(sub, "-h")...).CombinedOutput()
	for _, line := range strings.Split(string(out), "\n") {
		m := gitHelpOption.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		for _, name := range strings.Split(m[1], ", ") {
			name = strings.Replace(name, "[no-]", "", 1)
			if m[2] == "" && m[3] != "" {
				value = append(value, name)
			} else {
				flag = append(flag, name)
			}
		}
	}
	return value, flag
}

// TestGitValueOptions: every option of a git subcommand the rules judge
// that takes a value is known as one, so that its value is never read as
// an option (git push --repo -n pushed: -n was taken as --dry-run; found
// by an attacker), and no option that takes none is (its next word would
// be hidden from judgement). Checked against the git installed.
func TestGitValueOptions(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	git := Builtin().command("git")
	for _, sub := range [][]string{
		{"push"}, {"fetch"}, {"pull"}, {"checkout"}, {"restore"}, {"rm"}, {"reset"}, {"clean"},
		{"switch"}, {"branch"}, {"clone"}, {"commit"}, {"merge"}, {"rebase"}, {"init"}, {"config"},
		{"stash", "push"}, {"cherry-pick"}, {"revert"}, {"tag"}, {"add"}, {"mv"}, {"apply"}, {"ls-remote"},
		{"symbolic-ref"}, {"update-ref"}, {"gc"}, {"read-tree"}, {"checkout-index"},
		{"worktree", "add"}, {"remote", "add"}, {"reflog", "expire"}, {"am"}, {"notes", "add"},
	} {
		c := git
		for _, w := range sub {
			switch {
			case c.subs[w] != nil:
				c = c.subs[w]
			case c.subs["*"] != nil:
				c = c.subs["*"]
			}
		}
		value, flag := gitValueOptions(t, sub...)
		have := c.spec.ValueOptions
		for _, o := range value {
			if !slices.Contains(have, o) {
				t.Errorf("git %s: %s takes a value (git %s -h); add it to value_options", strings.Join(sub, " "), o, strings.Join(sub, " "))
			}
		}
		for _, o := range flag {
			if slices.Contains(have, o) && !slices.Contains(value, o) {
				t.Errorf("git %s: %s takes no value (git %s -h); remove it from value_options", strings.Join(sub, " "), o, strings.Join(sub, " "))
			}
		}
	}
}
