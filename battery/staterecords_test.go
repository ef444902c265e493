//go:build linux

package battery

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStateRecordsOutOfReach: the audit log of every workspace's
// commands, with whatever secret a command line named, cannot be read by
// a command the sandbox confines, on each backend: a program the judge
// lets run (a Perl script of the workspace's, which the judge does not
// read) tries. An attacker read a bearer token another command had sent
// from the audit log.
func TestStateRecordsOutOfReach(t *testing.T) {
	for _, backend := range []string{"bwrap", "landlock"} {
		t.Run(backend, func(t *testing.T) {
			e := newDecideEnv(t, backend, "")
			const secret = "sk-live-THESECRETINTHELOG"
			if stderr, code := e.sh(t, "echo "+secret+" > /dev/null && git init -q . && git remote add origin https://example.com/me/app.git"); code != 0 {
				t.Fatalf("a command naming a secret: exit %d\n%s", code, stderr)
			}
			if stderr, code := e.sh(t, "true"); code != 0 {
				t.Fatalf("true: exit %d\n%s", code, stderr)
			}
			files, _ := filepath.Glob(filepath.Join(e.state, "audit.log*"))
			log, _ := os.ReadFile(filepath.Join(e.state, "audit.log"))
			if !strings.Contains(string(log), secret) {
				t.Fatalf("nothing to try: the audit log holds no secret: %v", files)
			}
			mustWrite(t, filepath.Join(e.ws, "r.pl"), `use strict;
my $got = 0;
for my $f (@ARGV) {
	if (open(my $h, '<', $f)) { my $n = read($h, my $buf, 1 << 20); print "read $f: $n\n"; $got = 1 }
	if (opendir(my $d, $f)) { my @e = readdir($d); print "listed $f: @e\n"; $got = 1 }
}
exit($got ? 0 : 3);
`, 0o644)
			stderr, code := e.sh(t, "perl r.pl "+strings.Join(files, " "))
			if code != 3 {
				t.Errorf("the sandboxed program: exit %d, want 3 (nothing read)\n%s", code, stderr)
			}
		})
	}
}
