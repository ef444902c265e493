//go:build linux

package battery

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Attacks on the judge itself: commands of a few hundred bytes that,
// unbounded, take the judge gigabytes of memory or minutes. The real
// cordon binary judges each as a child process, watched: it must end
// with a verdict well within the time budget and a bounded peak memory.
const (
	attackTime   = 6 * time.Second // the 2 s budget, the rules, process start, a loaded machine
	attackRSS    = 400 << 20       // peak resident memory allowed
	attackKillAt = 1500 << 20      // the watchdog kills the child here, to spare the machine
)

func doublings(n int) string { return "x=ab" + strings.Repeat("; x=$x$x", n) + "; echo $x" }

func TestJudgeBudgetProcess(t *testing.T) {
	tree := t.TempDir()
	for i := range 110 {
		for j := range 100 {
			if err := os.MkdirAll(filepath.Join(tree, strconv.Itoa(i), strconv.Itoa(j)), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	y := "y=$(printf %064d 0); "
	nested := "bash -c 'true'"
	for range 14 {
		nested = "bash -c " + doubleQuote(nested)
	}
	// Ten aliases, each the next four times: an alias is not expanded
	// inside its own text, but a chain of them fans out to 4^10.
	aliasChain := "shopt -s expand_aliases\n"
	for i := range 10 {
		aliasChain += fmt.Sprintf("alias a%d='a%d;a%d;a%d;a%d'\n", i, i+1, i+1, i+1, i+1)
	}
	aliasChain += "a0"
	cases := []struct {
		name   string
		argv   []string
		budget bool // the verdict must be an ask for the budget
	}{
		{"nested glob loops", []string{"bash", "-c", "for a in /usr/*/*/*; do for b in /usr/*/*/*; do echo $a$b; done; done"}, false},
		{"concat x32", []string{"bash", "-c", doublings(32)}, true},
		{"replace chain", []string{"bash", "-c", "y=abcdefgh" + strings.Repeat("; y=${y//?/$y}", 6) + "; echo $y"}, true},
		{"nested replace", []string{"bash", "-c", y + "echo ${y//?/${y//?/${y//?/${y//?/${y//?/$y}}}}}"}, true},
		{"globstar", []string{"bash", "-c", "shopt -s globstar; ls " + tree + "/**/x"}, true},
		{"globstar root", []string{"bash", "-c", "shopt -s globstar; ls /**/x"}, false},
		{"brace 1e7", []string{"bash", "-c", "rm {1..10000000}"}, false},
		{"brace product", []string{"bash", "-c", "echo {1..1000}{1..1000}{1..1000}"}, false},
		{"arith loop", []string{"bash", "-c", "for ((i=0;i<1000000000;i++)); do x=$x$x; done"}, false},
		{"while true", []string{"bash", "-c", "while true; do x=$x$x$x; done"}, false},
		{"function fan-out", []string{"bash", "-c", "f(){ (f;f;f;f;f;f;f;f;f;f); }; f"}, true},
		{"alias fan-out", []string{"bash", "-c", aliasChain}, true},
		{"eval fan-out", []string{"bash", "-c", `x='eval $x $x $x'; eval $x`}, true},
		{"nested bash -c", []string{"bash", "-c", nested}, false},
		{"here-doc", []string{"bash", "-c", doublings(20) + "; cat <<EOF\n" + strings.Repeat("$x", 8) + "\nEOF"}, true},
		{"many commands", []string{"bash", "-c", strings.Repeat("a;", 60000)}, true},
		{"split words", []string{"bash", "-c", doublings(19) + `; rm ${x//?/a }`}, true},
		{"cmd for /l", []string{"--platform", "windows", "cmd", "/c", "for /l %i in (1,1,1000000000) do echo %i"}, false},
		{"cmd doubling", []string{"--platform", "windows", "cmd", "/v:on", "/c", "set X=ab" + strings.Repeat("&set X=!X!!X!", 40) + "&del !X!"}, false},
		{"ps range", []string{"--platform", "windows", "powershell", "-Command", "1..1000000000 | % { Remove-Item $_ }"}, false},
		{"ps multiply", []string{"--platform", "windows", "powershell", "-Command", "$a='a'*1e9; $b=$a*1e9; Remove-Item $b"}, false},
		{"ps doubling", []string{"--platform", "windows", "powershell", "-Command", "$a='ab'; 1..64 | % { $a=$a+$a }; Remove-Item $a"}, false},
		{"ps recursion", []string{"--platform", "windows", "powershell", "-Command", "function f { f; f; f }; f"}, false},
	}
	cordon := filepath.Join(t.TempDir(), "cordon")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(self, cordon); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cwd := t.TempDir()
			if c.argv[0] == "--platform" {
				cwd = `C:\work`
			}
			args := append([]string{"check", "--cwd", cwd}, c.argv[:len(c.argv)-len(trimFlags(c.argv))]...)
			args = append(append(args, "--"), trimFlags(c.argv)...)
			out, took, rss := watched(t, cordon, args)
			verdict, _, _ := strings.Cut(out, "\n")
			if verdict != "allow" && !strings.HasPrefix(verdict, "ask") && !strings.HasPrefix(verdict, "deny") {
				t.Fatalf("no verdict:\n%.2000s", out)
			}
			if took > attackTime {
				t.Errorf("took %v, want under %v", took, attackTime)
			}
			if rss > attackRSS {
				t.Errorf("peak memory %d MB, want under %d MB", rss>>20, attackRSS>>20)
			}
			if c.budget && (!strings.HasPrefix(verdict, "ask") || !strings.Contains(out, "budget:")) {
				t.Errorf("want an ask for the budget, got:\n%.2000s", out)
			}
			t.Logf("%s in %v, peak %d MB", verdict, took.Round(time.Millisecond), rss>>20)
		})
	}
}

// TestJudgeBudgetShim: the shim refuses a command over the budget with
// exit status 126 and a paragraph that says why, and runs nothing.
func TestJudgeBudgetShim(t *testing.T) {
	needShell(t, "bash")
	bash := filepath.Join(t.TempDir(), "bash")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(self, bash); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "ran")
	out, took, rss := watched(t, bash, []string{"-c", doublings(32) + "; touch " + marker})
	if !strings.Contains(out, "exit status 126") || !strings.Contains(out, "cordon: refused (ask") || !strings.Contains(out, "[rule budget]") {
		t.Errorf("want a refusal for the budget, got:\n%.2000s", out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the command ran")
	}
	if took > attackTime || rss > attackRSS {
		t.Errorf("took %v, peak %d MB", took, rss>>20)
	}
}

// trimFlags returns argv after cordon check's own flags.
func trimFlags(argv []string) []string {
	for len(argv) > 1 && strings.HasPrefix(argv[0], "--") {
		argv = argv[2:]
	}
	return argv
}

// watched runs path with args, killing it past 30 s or attackKillAt
// of resident memory, and returns its output (and exit status when not
// 0), how long it took and its peak resident memory.
func watched(t *testing.T, path string, args []string) (string, time.Duration, int64) {
	t.Helper()
	var out bytes.Buffer
	cmd := exec.Command(path, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	limit := time.After(30 * time.Second)
	var err error
wait:
	for {
		select {
		case err = <-done:
			break wait
		case <-limit:
			cmd.Process.Kill()
			t.Fatalf("still judging after 30 s; killed")
		case <-tick.C:
			if rss := residentBytes(cmd.Process.Pid); rss > attackKillAt {
				cmd.Process.Kill()
				<-done
				t.Fatalf("resident memory reached %d MB; killed", rss>>20)
			}
		}
	}
	took := time.Since(start)
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		t.Fatalf("killed by %v:\n%.2000s", ws.Signal(), out.String())
	}
	text := out.String()
	if err != nil {
		text += fmt.Sprintf("\n%v", err)
	}
	if strings.Contains(text, "fatal error") || strings.Contains(text, "goroutine ") {
		t.Fatalf("crashed:\n%.2000s", text)
	}
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss << 10 // kilobytes on Linux
	}
	return text, took, rss
}

// residentBytes reads a process's resident memory from /proc.
func residentBytes(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/statm", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(data))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

// doubleQuote quotes s in double quotes: a level of nesting doubles the
// backslashes at most, where single quotes would triple the text.
func doubleQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", `\$`, "`", "\\`").Replace(s) + `"`
}
