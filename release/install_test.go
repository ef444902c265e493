package release

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// The programs install.sh may use: the PATH of the tests below holds
// links to these and nothing else, so no Go and no other tool is found
// (a minimal Debian has them all). sh is dash, when installed.
var installTools = []string{"curl", "uname", "mktemp", "awk", "cut", "tar", "gzip", "chmod", "mkdir", "cp", "mv", "rm", "ln", "dirname", "cat", "grep", "sha256sum"}

// toolsDir makes a directory of links to installTools, less those in
// without.
func toolsDir(t *testing.T, without ...string) string {
	t.Helper()
	dir := t.TempDir()
	shell, err := exec.LookPath("dash")
	if err != nil {
		if os.Getenv("CORDON_REQUIRE_SHELLS") == "1" {
			t.Fatal("dash is not installed: install.sh is tested under dash (apt-get install dash)")
		}
		shell = "/bin/sh"
	}
	if err := os.Symlink(shell, filepath.Join(dir, "sh")); err != nil {
		t.Fatal(err)
	}
tools:
	for _, name := range installTools {
		for _, w := range without {
			if name == w {
				continue tools
			}
		}
		path, err := exec.LookPath(name)
		if err != nil {
			t.Fatalf("%s is not installed: the installer's test needs it", name)
		}
		if err := os.Symlink(path, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// installServer serves install.sh and, under /good/, the dist directory,
// and under other prefixes the same release spoiled in one way each.
func installServer(t *testing.T, dist string) *httptest.Server {
	t.Helper()
	script, err := os.ReadFile("../install.sh")
	if err != nil {
		t.Fatal(err)
	}
	archive := archiveName(runtime.GOOS, runtime.GOARCH)
	sums, err := os.ReadFile(filepath.Join(dist, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dist, archive))
	if err != nil {
		t.Fatal(err)
	}
	want := sha256Hex(data)
	if !bytes.Contains(sums, []byte(want+"  "+archive+"\n")) {
		t.Fatalf("checksums.txt has no line for %s with its sha256", archive)
	}
	flipped := bytes.Clone(data)
	flipped[len(flipped)/2] ^= 1
	var withoutLine []byte
	for _, l := range bytes.SplitAfter(sums, []byte("\n")) {
		if !bytes.HasSuffix(l, []byte("  "+archive+"\n")) {
			withoutLine = append(withoutLine, l...)
		}
	}

	mux := http.NewServeMux()
	mux.HandleFunc("/install.sh", func(w http.ResponseWriter, r *http.Request) { w.Write(script) })
	mux.Handle("/good/", http.StripPrefix("/good/", http.FileServer(http.Dir(dist))))
	serve := func(prefix string, files map[string][]byte) {
		mux.HandleFunc(prefix, func(w http.ResponseWriter, r *http.Request) {
			body, ok := files[strings.TrimPrefix(r.URL.Path, prefix)]
			if !ok {
				http.NotFound(w, r)
				return
			}
			w.Write(body)
		})
	}
	// checksums.txt altered: another sha256 for the archive.
	serve("/badsum/", map[string][]byte{archive: data, "checksums.txt": bytes.ReplaceAll(sums, []byte(want), []byte(sha256Hex([]byte("other"))))})
	// the archive altered by one bit.
	serve("/badarchive/", map[string][]byte{archive: flipped, "checksums.txt": sums})
	// no line for the archive.
	serve("/noline/", map[string][]byte{archive: data, "checksums.txt": withoutLine})
	// the archive missing.
	serve("/gone/", map[string][]byte{"checksums.txt": sums})
	srv := httptest.NewServer(mux) // 127.0.0.1
	t.Cleanup(srv.Close)
	return srv
}

// oneLiner runs `curl -fsSL URL/install.sh | sh` as a person would on a
// fresh machine: a new HOME, an empty environment, PATH only the tools
// dir, in a directory outside any checkout, with CORDON_DOWNLOAD_URL at
// the server's release. With release "checkout:NAME" it runs
// `sh /path/to/checkout/install.sh --no-demo` instead. It returns the
// home and TMPDIR it used.
func oneLiner(t *testing.T, srv *httptest.Server, tools, release string, env ...string) (home, tmp string, stdout, stderr string, err error) {
	t.Helper()
	root := outsideScratch(t)
	home, tmp, work := filepath.Join(root, "home"), filepath.Join(root, "tmp"), filepath.Join(root, "work")
	for _, d := range []string{home, tmp, work} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	line := "curl -fsSL " + srv.URL + "/install.sh | sh"
	if script, ok := strings.CutPrefix(release, "checkout:"); ok {
		release = script
		abs, err := filepath.Abs("../install.sh")
		if err != nil {
			t.Fatal(err)
		}
		line = "sh " + abs + " --no-demo"
	}
	cmd := exec.CommandContext(ctx, filepath.Join(tools, "sh"), "-c", line)
	cmd.Dir = work
	cmd.Env = append([]string{"HOME=" + home, "PATH=" + tools, "TMPDIR=" + tmp, "CORDON_DOWNLOAD_URL=" + srv.URL + "/" + release + "/"}, env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	return home, tmp, out.String(), errOut.String(), err
}

// outsideScratch makes a directory in the user's home, removed after
// the test: cordon refuses to run from a place that sandboxed commands
// can write (shim/selfcheck.go), such as /tmp.
func outsideScratch(t *testing.T) string {
	t.Helper()
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(home, ".cordon-release-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// files lists what is under dir, relative to it.
func files(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if path != dir {
			rel, _ := filepath.Rel(dir, path)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestInstallOneLiner: install.sh piped from a server installs the
// release's cordon and its shims for this user, and cordon then runs as
// a shell.
func TestInstallOneLiner(t *testing.T) {
	dist := dist(t)
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("install.sh is for Linux and macOS")
	}
	m := readMetadata(t, dist)
	srv := installServer(t, dist)
	tools := toolsDir(t)
	if _, err := exec.LookPath(filepath.Join(tools, "go")); err == nil {
		t.Fatal("go is on the test's PATH")
	}

	home, tmp, stdout, stderr, err := oneLiner(t, srv, tools, "good")
	if err != nil {
		t.Fatalf("curl | sh: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	bin := filepath.Join(home, ".local", "bin", "cordon")
	out, err := exec.Command(bin, "version").Output()
	if err != nil || !strings.HasPrefix(string(out), "cordon "+m.Version+" (commit ") {
		t.Errorf("%s version: %q %v, want cordon %s (commit ...)", bin, out, err, m.Version)
	}
	shims := filepath.Join(home, ".local", "share", "cordon", "shims")
	for _, name := range shimNames {
		if target, err := os.Readlink(filepath.Join(shims, name)); err != nil || target != bin {
			t.Errorf("shim %s: %q %v, want a link to %s", name, target, err, bin)
		}
	}
	for _, want := range []string{"downloading " + srv.URL + "/good/" + archiveName(runtime.GOOS, runtime.GOARCH), "installed cordon " + m.Version, "cordon install", "cordon doctor"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout has no %q:\n%s", want, stdout)
		}
	}
	if left := files(t, tmp); len(left) > 0 {
		t.Errorf("left in TMPDIR: %v", left)
	}

	// The shim judges and runs a command, as an agent's shell would.
	sh := exec.Command(filepath.Join(shims, "sh"), "-c", "echo ok")
	sh.Dir = home
	sh.Env = []string{"HOME=" + home, "PATH=" + shims + ":/usr/bin:/bin"}
	if out, err := sh.CombinedOutput(); err != nil || string(out) != "ok\n" {
		t.Errorf("the installed sh shim: %q %v", out, err)
	}

	// Run from a checkout on a machine without Go, it installs the
	// release too.
	home, _, stdout, stderr, err = oneLiner(t, srv, tools, "checkout:good")
	if err != nil || !strings.Contains(stdout, "go not found: installing the release") {
		t.Errorf("./install.sh without Go: %v\n%s%s", err, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(home, ".local", "bin", "cordon")); err != nil {
		t.Errorf("./install.sh without Go: %v", err)
	}

	// PREFIX installs elsewhere.
	home, _, stdout, stderr, err = oneLiner(t, srv, tools, "good", "PREFIX="+outsideScratch(t))
	if err != nil {
		t.Fatalf("PREFIX=...: %v\n%s%s", err, stdout, stderr)
	}
	if left := files(t, home); len(left) > 0 {
		t.Errorf("PREFIX set, but files in HOME: %v", left)
	}
}

// TestInstallRefuses: a release that does not check out (checksums.txt
// or the archive altered, no line for the archive, the archive missing,
// nothing to compute a SHA-256 with) aborts install.sh with the reason,
// and nothing is installed: HOME and TMPDIR stay empty, and an earlier
// cordon stays as it was.
func TestInstallRefuses(t *testing.T) {
	dist := dist(t)
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("install.sh is for Linux and macOS")
	}
	srv := installServer(t, dist)
	tools := toolsDir(t)
	for _, c := range []struct {
		release, tools, want string
	}{
		{"badsum", tools, "does not match checksums.txt"},
		{"badarchive", tools, "does not match checksums.txt"},
		{"noline", tools, "has no line for " + archiveName(runtime.GOOS, runtime.GOARCH)},
		{"gone", tools, "could not download " + srv.URL + "/gone/" + archiveName(runtime.GOOS, runtime.GOARCH)},
		{"nothere", tools, "could not download " + srv.URL + "/nothere/checksums.txt"},
		{"good", toolsDir(t, "sha256sum"), "neither sha256sum nor shasum"},
	} {
		t.Run(c.release+"_"+filepath.Base(c.tools), func(t *testing.T) {
			t.Parallel()
			home, tmp, stdout, stderr, err := oneLiner(t, srv, c.tools, c.release)
			if err == nil {
				t.Fatalf("install.sh succeeded:\n%s", stdout)
			}
			if !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "nothing installed") {
				t.Errorf("stderr %q, want %q and \"nothing installed\"", stderr, c.want)
			}
			if left := files(t, home); len(left) > 0 {
				t.Errorf("installed: %v", left)
			}
			if left := files(t, tmp); len(left) > 0 {
				t.Errorf("left in TMPDIR: %v", left)
			}
		})
	}

	// An update that fails leaves the cordon installed before untouched.
	prefix := outsideScratch(t)
	old := filepath.Join(prefix, "bin", "cordon")
	if err := os.MkdirAll(filepath.Dir(old), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(old, []byte("#!/bin/sh\necho old\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, _, stdout, _, err := oneLiner(t, srv, tools, "badarchive", "PREFIX="+prefix); err == nil {
		t.Fatalf("install.sh succeeded:\n%s", stdout)
	}
	if got, err := os.ReadFile(old); err != nil || string(got) != "#!/bin/sh\necho old\n" {
		t.Errorf("the earlier cordon: %q %v", got, err)
	}
	if left := files(t, prefix); strings.Join(left, " ") != "bin bin/cordon" {
		t.Errorf("under PREFIX: %v", left)
	}
}

// TestInstallPrefixInScratch: a PREFIX in the temporary directories,
// which every sandboxed command may write, is refused before anything is
// downloaded or built, with why and what to do; nothing is installed
// (cordon would refuse every command from there). It needs no release.
func TestInstallPrefixInScratch(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("install.sh is for Linux and macOS")
	}
	tools := toolsDir(t)
	script, err := filepath.Abs("../install.sh")
	if err != nil {
		t.Fatal(err)
	}
	root := outsideScratch(t)
	home := filepath.Join(root, "home")
	os.Mkdir(home, 0o755)
	for _, prefix := range []string{filepath.Join(t.TempDir(), "cordon"), "/var/tmp/cordon-install-test-nonexistent/x"} {
		cmd := exec.Command(filepath.Join(tools, "sh"), script, "--no-demo")
		cmd.Dir = root
		cmd.Env = []string{"HOME=" + home, "PATH=" + tools, "PREFIX=" + prefix, "CORDON_DOWNLOAD_URL=http://127.0.0.1:9/nothing/"}
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		if err == nil || !strings.Contains(errOut.String(), "which every command cordon runs may write") || !strings.Contains(errOut.String(), "nothing installed") ||
			strings.Contains(out.String(), "installed") || strings.Contains(out.String(), "downloading") {
			t.Errorf("PREFIX=%s: %v\nstdout:\n%s\nstderr:\n%s", prefix, err, out.String(), errOut.String())
		}
		if _, err := os.Stat(prefix); err == nil {
			t.Errorf("PREFIX=%s was made", prefix)
		}
	}
}
