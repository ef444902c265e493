package platform

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestMountinfoDir(t *testing.T) {
	const table = `22 1 0:21 / / rw,relatime shared:1 - ext4 /dev/vda rw
40 22 0:35 / /home/u/.local/state/cordon/agent-shells rw,nosuid - tmpfs cordon-agent-shells rw,size=16k
41 22 0:36 / /tmp/fake rw - tmpfs cordon-agent-shells rw
42 22 0:37 / /srv/other ro - tmpfs tmpfs ro
43 22 0:38 / /home/a\040b/agent-shells ro,nosuid,nodev shared:9 - tmpfs cordon-agent-shells ro
44 22 0:39 / /x/ro-ext4 ro - ext4 cordon-agent-shells ro
`
	// Only a read-only tmpfs of that name counts (a writable one could
	// hold anything), and its escaped path is undone.
	if got, want := mountinfoDir([]byte(table), agentShellsSource), "/home/a b/agent-shells"; got != want {
		t.Errorf("mountinfoDir = %q, want %q", got, want)
	}
	if got := mountinfoDir([]byte(table[:strings.Index(table, "43 ")]), agentShellsSource); got != "" {
		t.Errorf("without a read-only one: %q, want none", got)
	}
}

func TestAgentPlan(t *testing.T) {
	dir := t.TempDir()
	bin, usr := filepath.Join(dir, "bin"), filepath.Join(dir, "usr")
	for _, d := range []string{bin, usr} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p string, mode os.FileMode) {
		if err := os.WriteFile(p, []byte(p), mode); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, p string) {
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	self := filepath.Join(dir, "cordon")
	write(self, 0o755)
	write(filepath.Join(usr, "bash"), 0o755)
	write(filepath.Join(usr, "dash"), 0o755)
	write(filepath.Join(usr, "busybox"), 0o755)
	write(filepath.Join(usr, "ksh"), 0o644) // not executable
	link("dash", filepath.Join(usr, "sh"))
	link(filepath.Join(usr, "bash"), filepath.Join(bin, "bash")) // a merged /usr
	link(filepath.Join(usr, "busybox"), filepath.Join(bin, "sh"))
	link(self, filepath.Join(bin, "zsh")) // cordon already

	shells, cover, skipped := agentPlan(ShellNames, []string{bin, usr}, self)
	want := map[string]string{"bash": filepath.Join(usr, "bash"), "sh": filepath.Join(usr, "dash"), "dash": filepath.Join(usr, "dash")}
	if len(shells) != len(want) {
		t.Errorf("shells = %v, want %v", shells, want)
	}
	for name, p := range want {
		if shells[name] != p {
			t.Errorf("shells[%s] = %q, want %q", name, shells[name], p)
		}
	}
	slices.Sort(cover)
	if wantCover := []string{filepath.Join(usr, "bash"), filepath.Join(usr, "dash")}; !slices.Equal(cover, wantCover) {
		t.Errorf("cover = %v, want %v (busybox, not executable, cordon: never)", cover, wantCover)
	}
	if len(skipped) != 1 || !strings.HasPrefix(skipped[0], filepath.Join(bin, "sh")+" ") {
		t.Errorf("skipped = %v, want %s (busybox)", skipped, filepath.Join(bin, "sh"))
	}
}

// TestAgentNoUserNamespace: where an ordinary user may not make a user
// namespace, cordon agent says why and what to do, and starts nothing;
// root needs none.
func TestAgentNoUserNamespace(t *testing.T) {
	refused := func() error {
		return errors.New("making one needs root or a user namespace, and unprivileged user namespaces are disabled (sysctl kernel.unprivileged_userns_clone=0; 1 allows them)")
	}
	sys, err := agentAttr(1000, refused)
	if sys != nil || err == nil {
		t.Fatalf("agentAttr = %v, %v; want an error", sys, err)
	}
	for _, want := range []string{"mount namespace", "kernel.unprivileged_userns_clone=0", "allow unprivileged user namespaces", "shims first on the agent's PATH"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
	}
	sys, err = agentAttr(1000, func() error { return nil })
	if err != nil || sys.Cloneflags&unix.CLONE_NEWUSER == 0 || sys.Cloneflags&unix.CLONE_NEWNS == 0 || len(sys.UidMappings) != 1 || sys.UidMappings[0].HostID != os.Geteuid() {
		t.Errorf("an ordinary user's set-up: %+v, %v; want a user and a mount namespace, the user mapped to itself", sys, err)
	}
	sys, err = agentAttr(0, refused)
	if err != nil || sys.Cloneflags&unix.CLONE_NEWUSER != 0 || sys.Cloneflags&unix.CLONE_NEWNS == 0 {
		t.Errorf("root's set-up: %+v, %v; want a mount namespace only", sys, err)
	}
}

// TestAgentSignals runs this test binary through [RunAgent] (as cordon
// agent does) and sends the cordon process SIGTERM: the program gets it
// (it exits 7 on it) and cordon ends as the program did. Without the
// forwarding, cordon would die of the signal itself.
func TestAgentSignals(t *testing.T) {
	switch os.Getenv("CORDON_AGENT_TEST") {
	case "run":
		os.Setenv("CORDON_AGENT_TEST", "program")
		code, err := RunAgent([]string{os.Args[0], "-test.run=^TestAgentSignals$"}, &AgentSetup{Shells: ShellNames, Dir: os.Getenv("CORDON_AGENT_DIR")}, os.Stderr)
		fmt.Fprintf(os.Stderr, "cordon agent: %v\n", err)
		os.Exit(code)
	case "program":
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, syscall.SIGTERM)
		fmt.Println("ready")
		<-sigs
		os.Exit(7)
	}
	skipNested(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestAgentSignals$")
	cmd.Env = append(os.Environ(), "CORDON_AGENT_TEST=run", "CORDON_AGENT_DIR="+t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop := time.AfterFunc(60*time.Second, func() { cmd.Process.Kill() })
	defer stop.Stop()
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line == "ready\n" {
		cmd.Process.Signal(syscall.SIGTERM)
	}
	cmd.Wait()
	if strings.Contains(stderr.String(), "cannot make a mount namespace") && os.Getenv("CORDON_REQUIRE_SANDBOX") == "" {
		t.Skipf("no namespace here: %s", stderr.String())
	}
	if got := cmd.ProcessState.String(); got != "exit status 7" {
		t.Fatalf("cordon agent ended with %s, want the program's exit status 7 (it got SIGTERM); stdout %q, stderr:\n%s", got, line, stderr.String())
	}
}

// BenchmarkAgentRestores is what every sandbox start pays outside cordon
// agent's namespace to learn that it is outside; BenchmarkMountinfo what
// reading the mount table instead would cost.
func BenchmarkAgentRestores(b *testing.B) {
	for b.Loop() {
		if agentRestores() != nil {
			b.Fatal("inside cordon agent's namespace")
		}
	}
}

func BenchmarkMountinfo(b *testing.B) {
	for b.Loop() {
		if readAgentShellsDir() != "" {
			b.Fatal("inside cordon agent's namespace")
		}
	}
}

// TestAgentNoCapabilities runs this test binary through [RunAgent] as an
// ordinary user: the program holds no capability in any set. The set-up
// held CAP_SYS_ADMIN, CAP_NET_ADMIN and CAP_SETPCAP in the user namespace
// (ambient, so also inheritable); an inheritable one left over is gained
// back by executing any file whose capabilities list it as inheritable,
// and with CAP_SYS_ADMIN there the program could unmount the shells
// cordon covers. Root keeps what it had, by design.
func TestAgentNoCapabilities(t *testing.T) {
	if os.Getenv("CORDON_AGENT_TEST") == "caps" {
		os.Setenv("CORDON_AGENT_TEST", "capsprogram")
		code, err := RunAgent([]string{os.Args[0], "-test.run=^TestAgentNoCapabilities$"}, &AgentSetup{Shells: ShellNames, Dir: os.Getenv("CORDON_AGENT_DIR")}, os.Stderr)
		fmt.Fprintf(os.Stderr, "cordon agent: %v\n", err)
		os.Exit(code)
	}
	if os.Getenv("CORDON_AGENT_TEST") == "capsprogram" {
		c, err := threadCaps()
		fmt.Printf("caps %v %+v\n", err, c)
		os.Exit(0)
	}
	if os.Geteuid() == 0 {
		t.Skip("root keeps its capabilities under cordon agent, by design; run as an ordinary user")
	}
	skipNested(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestAgentNoCapabilities$")
	cmd.Env = append(os.Environ(), "CORDON_AGENT_TEST=caps", "CORDON_AGENT_DIR="+t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, _ := cmd.Output()
	if strings.Contains(stderr.String(), "cannot make a mount namespace") && os.Getenv("CORDON_REQUIRE_SANDBOX") == "" {
		t.Skipf("no namespace here: %s", stderr.String())
	}
	if want := fmt.Sprintf("caps <nil> %+v\n", capSets{}); !strings.Contains(string(out), want) {
		t.Fatalf("the program under cordon agent: %q, want %q (no capability in any set); stderr:\n%s", out, want, stderr.String())
	}
}
