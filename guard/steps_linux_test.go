package guard

import (
	"slices"
	"testing"
)

// TestExecLines: the todo list's lines that run a shell command, as
// git's sequencer reads them.
func TestExecLines(t *testing.T) {
	todo := "pick 1234 one\n  exec make test\r\nx ./x\n\tEXEC y\n# exec not this\nexecute 1\nbreak\nexec\tz\n"
	want := []string{"exec make test", "x ./x", "EXEC y", "exec\tz"}
	if got := execLines([]byte(todo)); !slices.Equal(got, want) {
		t.Errorf("execLines = %q, want %q", got, want)
	}
}

// TestStepRuns: a step file runs something new only when it holds a
// command or a strategy the trusted version did not.
func TestStepRuns(t *testing.T) {
	b := &book{}
	for _, tt := range []struct {
		name, data, before string
		runs               bool
	}{
		{"git-rebase-todo", "pick 1 a\n", "", false},
		{"git-rebase-todo", "pick 1 a\nexec ./x\n", "", true},
		{"git-rebase-todo", "exec make\n", "pick 1 a\nexec make\n", false},
		{"git-rebase-todo", "exec make\nexec ./x\n", "exec make\n", true},
		{"strategy", "ort\n", "", false},
		{"strategy", "../x\n", "", true},
		{"strategy", "custom\n", "custom\n", false},
		{"todo", "pick 1 a\n", "", false},
	} {
		var before []byte
		if tt.before != "" {
			before = []byte(tt.before)
		}
		if got := b.runs(tt.name, []byte(tt.data), before); (got != "") != tt.runs {
			t.Errorf("runs(%s, %q, %q) = %q", tt.name, tt.data, tt.before, got)
		}
	}
	if b.runs("git-rebase-todo", nil, nil) == "" {
		t.Error("an unreadable todo list is taken for harmless")
	}
}
