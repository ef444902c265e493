package parse

import (
	"strings"
	"testing"
)

// TestLateHeredoc: a here-document whose line ends in "]]" or a let is
// read by the parser from later lines than the shell reads it (its
// body's lines parsed as commands: an exit there stopped the walk before
// the rm -rf ~ that bash runs): the judge asks. Where the parser reads it
// as the shell does, it does not.
func TestLateHeredoc(t *testing.T) {
	late := []string{
		"cat > t.sh <<EOF || [[ -f x ]]\nexit\nEOF\nrm -rf ~\n",
		"cat > t.sh <<EOF || [[ -f x ]]  \nexit\nEOF\nrm -rf ~\n",
		"cat > t.sh <<EOF || [[ -f x ]] # why\nexit\nEOF\nrm -rf ~\n",
		"cat > /dev/null <<EOF; let x=1\nexit\nEOF\nrm -rf ~\n",
		"cat <<EOF | [[ -n x ]]\nexit\nEOF\nrm -rf ~\n",
		"f() {\n  cat <<EOF || [[ -f x ]]\nexit\nEOF\n}\nf\nrm -rf ~\n",
		"eval 'cat <<EOF || [[ -f x ]]\nexit\nEOF'\nrm -rf ~\n",
		"cat <<EOF; [[ 1 ]]\\\n\nexit\nEOF\nrm -rf ~\n",
		"cat <<EOF; let x=1\\\n\nexit\nEOF\nrm -rf ~\n",
		"cat <<EOF; [[ 1 \\\n]]\nexit\nEOF\nrm -rf ~\n",
	}
	for _, script := range late {
		got := render(Parse(script, testConfig(t.TempDir())))
		if !strings.Contains(got, "problem 0:") || !strings.Contains(got, "here-document") {
			t.Errorf("%q: not asked about:\n%s", script, got)
		}
	}
	for _, script := range []string{
		"cat <<EOF || [[ -f x ]];\nbody\nEOF\nrm -rf /after\n",
		"cat <<EOF; let x=1;\nbody\nEOF\nrm -rf /after\n",
		"[[ -f x ]] && cat <<EOF\nbody\nEOF\nrm -rf /after\n",
		"cat <<EOF; ((x=1))\nbody\nEOF\nrm -rf /after\n",
		"cat <<EOF\nbody ]]\nEOF\n[[ -f x ]]\nlet y=1\nrm -rf /after\n",
		"x=$(cat <<EOF\nbody\nEOF\n)\nrm -rf /after\n",
		"cat <<A <<B\na\nA\nb\nB\nrm -rf /after\n",
	} {
		got := render(Parse(script, testConfig(t.TempDir())))
		if strings.Contains(got, "problem") || !strings.Contains(got, "rm -rf /after") {
			t.Errorf("%q: asked about, or not walked to the end:\n%s", script, got)
		}
	}
}
