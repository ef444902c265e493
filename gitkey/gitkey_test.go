package gitkey

import (
	"slices"
	"testing"
)

var safe = []string{"user.*", "branch.*.merge", "remote.*.url", "core.fileMode", "gc.*"}

func TestSafe(t *testing.T) {
	for key, want := range map[string]bool{
		"user.name":                 true,
		"USER.Name":                 true, // section and name ignore case
		"user.x.y":                  true,
		"branch.main.merge":         true,
		"branch.feature/x.y.merge":  true, // a subsection with dots and slashes
		"branch.MAIN.merge":         true,
		"core.filemode":             true,
		"Core.FileMode":             true,
		"remote.origin.url":         true,
		"core.fsmonitor":            false,
		"core.x.filemode":           false, // a subsection is another key
		"branch.main.mergeoptions":  false,
		"branch.autosetupmerge":     false,
		"remote.origin.uploadpack":  false,
		"remote.a.uploadpack.x":     false,
		"include.path":              false,
		"includeif.gitdir:/x/.path": false,
		"alias.co":                  false,
		"user":                      false,
		".user.name":                false,
		"user.":                     false,
		"":                          false,
	} {
		if got := Safe(safe, key); got != want {
			t.Errorf("Safe(%q) = %v, want %v", key, got, want)
		}
	}
	if Safe(nil, "user.name") {
		t.Error("with no safe list, user.name is safe")
	}
}

func TestList(t *testing.T) {
	got := List([]byte("core.bare\nfalse\x00core.x.pager\nless -R\nx\x00remote.o.fetch\n\x00core.bool\x00"))
	want := []Entry{{Key: "core.bare", Value: "false"}, {Key: "core.x.pager", Value: "less -R\nx"}, {Key: "remote.o.fetch"}, {Key: "core.bool", Bare: true}}
	if !slices.Equal(got, want) {
		t.Errorf("List = %+v, want %+v", got, want)
	}
}

func TestDiff(t *testing.T) {
	before := []Entry{{Key: "user.name", Value: "a"}, {Key: "core.pager", Value: "less"}, {Key: "remote.o.fetch", Value: "1"}, {Key: "remote.o.fetch", Value: "2"}, {Key: "core.bool", Bare: true}}
	after := []Entry{{Key: "user.name", Value: "b"}, {Key: "remote.o.fetch", Value: "2"}, {Key: "remote.o.fetch", Value: "1"}, {Key: "core.bool", Value: ""}, {Key: "alias.x", Value: "!sh"}}
	want := []string{"alias.x", "core.bool", "core.pager", "remote.o.fetch", "user.name"}
	if got := Diff(before, after); !slices.Equal(got, want) {
		t.Errorf("Diff = %q, want %q", got, want)
	}
	if got := Diff(before, slices.Clone(before)); got != nil {
		t.Errorf("Diff of equal lists = %q", got)
	}
	if !Has(before, "core.pager") || Has(after, "core.pager") {
		t.Error("Has is wrong")
	}
}

func TestCondition(t *testing.T) {
	globs := append([]string{"core.worktree=@workspace", "remote.*.url=@new", "branch.*.pushRemote=@remote"}, safe...)
	if Safe(globs, "core.worktree") || Safe(globs, "core.worktree=@workspace") || Safe(globs, "branch.main.pushRemote") {
		t.Error("a conditional glob matched without its condition")
	}
	for key, want := range map[string]string{
		"core.worktree": InWorkspace, "Core.WorkTree": InWorkspace, "core.x.worktree": "", "core.pager": "", "user.name": "",
		"remote.upstream.url": New, "branch.feature/x.pushRemote": KnownRemote, "branch.pushremote": "",
	} {
		if got := Condition(globs, key); got != want {
			t.Errorf("Condition(%q) = %q, want %q", key, got, want)
		}
	}
	es := []Entry{{Key: "remote.origin.url", Value: "https://example.com/r.git"}, {Key: "branch.main.remote", Value: "origin"}}
	if !Existed(es, "remote.origin.pushurl") || Existed(es, "remote.evil.url") || Existed(es, "core.pager") {
		t.Error("Existed is wrong")
	}
	if !Remote(es, "origin") || Remote(es, "main") || Remote(es, "evil") {
		t.Error("Remote is wrong")
	}
}
