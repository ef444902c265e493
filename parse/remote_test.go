package parse

import (
	"regexp"
	"strings"
	"testing"
)

// elsewhere renders commands one per line, "@elsewhere" marking those
// that run on another machine and "!code" unknown code.
func elsewhere(res *Result) string {
	var lines []string
	for _, c := range res.Commands {
		s := c.Line()
		if c.Elsewhere {
			s += " @elsewhere"
		}
		if c.Privileged {
			s += " !priv"
		}
		if c.UnknownCode {
			s += " !code"
		}
		lines = append(lines, s)
	}
	return strings.Join(lines, "\n")
}

func withKnowledge(extra testKnowledge) testKnowledge {
	k := testKnowledge{}
	for n, c := range knowledge {
		k[n] = c
	}
	for n, c := range extra {
		k[n] = c
	}
	return k
}

// TestRemoteCarrier: ssh HOST CMD runs CMD, joined by spaces, on another
// machine; its commands are marked Elsewhere, and nothing after ssh is.
func TestRemoteCarrier(t *testing.T) {
	cfg := testConfig(t.TempDir())
	cfg.Knowledge = withKnowledge(testKnowledge{
		"ssh": {Kind: CarryRemote, Skip: 1, ValueOptions: []string{"-p", "-o", "-i", "-J", "-L"}},
	})
	for _, tt := range []struct{ script, want string }{
		{`ssh prod 'rm -rf /x && ls'`, "ssh prod rm -rf /x && ls\nrm -rf /x @elsewhere\nls @elsewhere"},
		{`ssh -p 2222 -o BatchMode=yes prod -- rm -rf /x`, "ssh -p 2222 -o BatchMode=yes prod -- rm -rf /x\nrm -rf /x @elsewhere"},
		{`ssh prod -t rm /x`, "ssh prod -t rm /x\nrm /x @elsewhere"},
		{`ssh prod rm "'a b'"`, "ssh prod rm 'a b'\nrm a b @elsewhere"},
		{`ssh -N -L 5432:localhost:5432 bastion`, "ssh -N -L 5432:localhost:5432 bastion"},
		{`ssh prod`, "ssh prod"},
		{`ssh prod "$(cat f)"`, "cat f\nssh prod ? !code"},
		{`ssh -J jump prod 'ssh db rm /y'`, "ssh -J jump prod ssh db rm /y\nssh db rm /y @elsewhere\nrm /y @elsewhere"},
		{`ssh prod 'bash -c "rm /z"'`, "ssh prod bash -c \"rm /z\"\nbash -c rm /z @elsewhere\nrm /z @elsewhere"},
		{`ssh prod ls; rm /z`, "ssh prod ls\nls @elsewhere\nrm /z"},
		{`sudo ssh prod rm /x`, "sudo ssh prod rm /x\nssh prod rm /x !priv\nrm /x @elsewhere"},
	} {
		if got := elsewhere(Parse(tt.script, cfg)); got != tt.want {
			t.Errorf("%s\ngot:\n%s\nwant:\n%s", tt.script, got, tt.want)
		}
	}
}

// TestInterpSQL: a database client's code is read as SQL statements, from
// a code flag anywhere in its arguments, the operand after its database,
// or standard input; the statements of the listed kinds are translated.
func TestInterpSQL(t *testing.T) {
	loss := Translation{SQL: []string{"delete-all", "drop-table"}, Argv: []string{"dropdb", "$1"}, Pattern: regexp.MustCompile("")}
	cfg := testConfig(t.TempDir())
	cfg.Knowledge = withKnowledge(testKnowledge{
		"psql": {Kind: CarryInterp, CodeFlags: []string{"-c", "--command", "-cmd"}, CodeAnywhere: true, CodeOperand: true, Skip: 1,
			ValueOptions: []string{"-h", "-d"}, Translations: []Translation{loss}},
	})
	for _, tt := range []struct{ script, want string }{
		{`psql app -c 'DELETE FROM t'`, "psql app -c DELETE FROM t\ndropdb delete-all <- psql"},
		{`psql --command='DROP TABLE t'`, "psql --command=DROP TABLE t\ndropdb drop-table <- psql"},
		{`psql -cmd 'DELETE FROM jobs' db.sqlite`, "psql -cmd DELETE FROM jobs db.sqlite\ndropdb delete-all <- psql"},
		{`psql app.db 'select 1; delete from t'`, "psql app.db select 1; delete from t\ndropdb delete-all <- psql"},
		{`psql app.db 'DELETE FROM t WHERE id = 1'`, "psql app.db DELETE FROM t WHERE id = 1"},
		{"psql -d app <<EOF\nSELECT 1;\nDELETE FROM t;\nEOF", "psql -d app\ndropdb delete-all <- psql"},
		{`echo 'DROP TABLE t;' | psql app`, "echo DROP TABLE t;\npsql app\ndropdb drop-table <- psql"},
		{`psql -h db app admin`, "psql -h db app admin"},
		{`psql -c "INSERT INTO log VALUES ('DROP TABLE t')"`, "psql -c INSERT INTO log VALUES ('DROP TABLE t')"},
	} {
		if got := render(Parse(tt.script, cfg)); got != tt.want {
			t.Errorf("%s\ngot:\n%s\nwant:\n%s", tt.script, got, tt.want)
		}
	}
}
