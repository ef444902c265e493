package shim

import (
	"os"
	"os/exec"
	"testing"
)

// FuzzRefusal runs the refusal line in real shells: whatever the message
// holds, they print it exactly on stderr, run nothing else and set $? to
// 126.
func FuzzRefusal(f *testing.F) {
	for _, s := range []string{"plain\n", "it's", `a\nb\c\0047%s%b`, "'; touch /tmp/x; '", "$(id) `id` ${HOME}", "\x1b]0;t\x07", "ends in '", "''", "\\"} {
		f.Add(s)
	}
	shells := map[string]string{}
	for _, name := range []string{"bash", "dash", "zsh"} {
		for _, dir := range []string{"/bin", "/usr/bin"} {
			if _, err := os.Stat(dir + "/" + name); err == nil {
				shells[name] = dir + "/" + name
				break
			}
		}
	}
	if len(shells) == 0 {
		f.Skip("no shell installed")
	}
	f.Fuzz(func(t *testing.T, msg string) {
		want := ""
		for i := 0; i < len(msg); i++ {
			if msg[i] != 0 {
				want += msg[i : i+1]
			}
		}
		for name, path := range shells {
			cmd := exec.Command(path, "-c", refusal(msg, "(exit 126)")+`echo "$?"`)
			cmd.Env = []string{"PATH=/usr/bin:/bin"}
			out, err := cmd.Output()
			var stderr []byte
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = ee.Stderr
			}
			if err != nil || string(out) != "126\n" {
				t.Fatalf("%s: stdout %q, %v, stderr %q", name, out, err, stderr)
			}
			cmd = exec.Command(path, "-c", refusal(msg, "(exit 126)"))
			cmd.Env = []string{"PATH=/usr/bin:/bin"}
			var errb, outb safeBuf
			cmd.Stderr, cmd.Stdout = &errb, &outb
			cmd.Run()
			if string(errb) != want || len(outb) != 0 {
				t.Fatalf("%s printed %q on stderr, %q on stdout; want %q", name, errb, outb, want)
			}
		}
	})
}

type safeBuf []byte

func (b *safeBuf) Write(p []byte) (int, error) { *b = append(*b, p...); return len(p), nil }
