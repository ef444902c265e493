package platform

import (
	"bytes"
	"debug/elf"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// trampolineArches are the architectures with a trampoline, with the
// assembler for each (binutils', the host's own "as" too on that
// architecture) and qemu-user's emulator.
var trampolineArches = []struct{ arch, as, qemu string }{
	{"amd64", "x86_64-linux-gnu-as", "qemu-x86_64-static"},
	{"arm64", "aarch64-linux-gnu-as", "qemu-aarch64-static"},
}

// required fails the test for a missing tool where CI installs it
// (CORDON_REQUIRE_ASSEMBLERS, .ci/run), else skips it.
func required(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("CORDON_REQUIRE_ASSEMBLERS") != "" {
		t.Fatalf(format, args...)
	}
	t.Skipf(format, args...)
}

// TestTrampolineAssembles assembles testdata/trampoline/ARCH.s with the
// real assembler and compares its code, byte for byte, with the bytes in
// trampoline_linux.go; the instructions in the comments there must be
// those of the assembly too.
func TestTrampolineAssembles(t *testing.T) {
	goSrc, err := os.ReadFile("trampoline_linux.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range trampolineArches {
		t.Run(a.arch, func(t *testing.T) {
			src := filepath.Join("testdata", "trampoline", a.arch+".s")
			as, err := exec.LookPath(a.as)
			if err != nil && a.arch == runtime.GOARCH {
				as, err = exec.LookPath("as")
			}
			if err != nil {
				required(t, "%s is missing (binutils, binutils-aarch64-linux-gnu)", a.as)
			}
			obj := filepath.Join(t.TempDir(), a.arch+".o")
			if out, err := exec.Command(as, "-o", obj, src).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", a.as, err, out)
			}
			f, err := elf.Open(obj)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			for _, s := range f.Sections {
				if s.Type == elf.SHT_RELA || s.Type == elf.SHT_REL {
					t.Errorf("relocations (%s): the code must be position-independent as it stands", s.Name)
				}
			}
			text := f.Section(".text")
			if text == nil {
				t.Fatal("no .text")
			}
			want, err := text.Data()
			if err != nil {
				t.Fatal(err)
			}
			code, _ := trampolineCode(a.arch)
			if !bytes.Equal(code, want) {
				t.Errorf("trampoline%s's bytes differ from %s assembled:\n got % x\nwant % x", strings.ToUpper(a.arch), src, code, want)
			}
			// The comments beside the bytes name the same instructions.
			asm, _ := os.ReadFile(src)
			var fromAsm, fromGo []string
			comment := regexp.MustCompile(`\s+` + map[string]string{"amd64": "#", "arm64": "//"}[a.arch] + `.*$`)
			for _, line := range strings.Split(string(asm), "\n") {
				line = strings.TrimSpace(comment.ReplaceAllString(line, ""))
				if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "//") || (strings.HasPrefix(line, ".") && !strings.HasPrefix(line, ".ascii")) {
					continue
				}
				fromAsm = append(fromAsm, strings.Join(strings.Fields(line), " "))
			}
			_, block, _ := strings.Cut(string(goSrc), "var trampoline"+strings.ToUpper(a.arch)+" = []byte{\n")
			block, _, _ = strings.Cut(block, "\n}\n")
			for _, line := range strings.Split(block, "\n") {
				_, c, ok := strings.Cut(line, "// ")
				if !ok {
					continue
				}
				c, _, _ = strings.Cut(c, "  ; ")
				fromGo = append(fromGo, strings.Join(strings.Fields(c), " "))
			}
			if strings.Join(fromGo, "\n") != strings.Join(fromAsm, "\n") {
				t.Errorf("the comments in trampoline_linux.go are not %s's instructions:\n%s\n---\n%s", src, strings.Join(fromGo, "\n"), strings.Join(fromAsm, "\n"))
			}
		})
	}
}

// TestTrampolineELF reads the trampoline's ELF file back.
func TestTrampolineELF(t *testing.T) {
	for _, a := range trampolineArches {
		data := trampolineELF(a.arch)
		f, err := elf.NewFile(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", a.arch, err)
		}
		code, _ := trampolineCode(a.arch)
		machine := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[a.arch]
		if f.Type != elf.ET_EXEC || f.Machine != machine || len(f.Progs) != 2 {
			t.Fatalf("%s: type %v, machine %v, %d program headers", a.arch, f.Type, f.Machine, len(f.Progs))
		}
		load, stack := f.Progs[0], f.Progs[1]
		if load.Type != elf.PT_LOAD || load.Flags != elf.PF_R|elf.PF_X || load.Off != 0 || load.Filesz != uint64(len(data)) || load.Memsz != load.Filesz {
			t.Errorf("%s: segment %+v", a.arch, load.ProgHeader)
		}
		if stack.Type != elf.PT_GNU_STACK || stack.Flags != elf.PF_R|elf.PF_W {
			t.Errorf("%s: stack %+v", a.arch, stack.ProgHeader)
		}
		if off := f.Entry - load.Vaddr; off != uint64(len(data)-len(code)) || !bytes.Equal(data[off:], code) {
			t.Errorf("%s: entry at %#x, not the code's start", a.arch, f.Entry)
		}
	}
	if trampolineELF("riscv64") != nil {
		t.Error("a trampoline for riscv64")
	}
}

// TestTrampolineRuns runs each trampoline (natively, or under qemu-user
// for another architecture): descriptor K becomes the program's standard
// error and is not open in it, argv[0] is kept, the environment passes,
// and a program that cannot run gives a message and 127 or 126.
func TestTrampolineRuns(t *testing.T) {
	for _, a := range trampolineArches {
		t.Run(a.arch, func(t *testing.T) {
			var emu []string
			if a.arch != runtime.GOARCH {
				q, err := exec.LookPath(a.qemu)
				if err != nil {
					required(t, "%s is missing (qemu-user-static)", a.qemu)
				}
				emu = []string{q}
			}
			tramp := filepath.Join(t.TempDir(), "tramp")
			if err := os.WriteFile(tramp, trampolineELF(a.arch), 0o555); err != nil {
				t.Fatal(err)
			}
			run := func(args ...string) (stdout, stderr, k string, code int) {
				t.Helper()
				kf, err := os.CreateTemp(t.TempDir(), "k")
				if err != nil {
					t.Fatal(err)
				}
				defer kf.Close()
				var out, errb bytes.Buffer
				argv := append(append(emu, tramp, "7"), args...)
				cmd := exec.Command(argv[0], argv[1:]...)
				cmd.Env = []string{"TRAMPOLINE_VAR=kept", "PATH=/usr/bin:/bin"}
				cmd.Stdout, cmd.Stderr = &out, &errb
				null, _ := os.Open(os.DevNull)
				defer null.Close()
				cmd.ExtraFiles = []*os.File{null, nil, nil, nil, kf} // 3, and K = 7 (4 to 6 free: the shell opens its directory listing at 4)
				err = cmd.Run()
				var ee *exec.ExitError
				if err != nil && !errors.As(err, &ee) {
					t.Fatal(err)
				}
				data, _ := os.ReadFile(kf.Name())
				return out.String(), errb.String(), string(data), cmd.ProcessState.ExitCode()
			}
			script := `tr '\0' '|' </proc/$$/cmdline; echo "$TRAMPOLINE_VAR"; echo to-stderr >&2; for f in /proc/$$/fd/*; do echo "${f##*/}"; done >&2`
			out, errs, k, code := run("/bin/sh", "-shell-name", "-c", script, "arg0", "arg1")
			if code != 0 || out != "-shell-name|-c|"+script+"|arg0|arg1|kept\n" || errs != "" {
				t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
			}
			fds := strings.Fields(strings.TrimPrefix(k, "to-stderr\n"))
			if !strings.HasPrefix(k, "to-stderr\n") || strings.Contains(" "+strings.Join(fds, " ")+" ", " 7 ") || !strings.Contains(" "+strings.Join(fds, " ")+" ", " 3 ") {
				t.Errorf("descriptor K's file got %q: want the program's standard error, with 3 open and 7 (K) not", k)
			}
			_, errs, k, code = run("/no/such/program", "x")
			if code != 127 || k != "cordon: /no/such/program: not found\n" || errs != "" {
				t.Errorf("a missing program: exit %d, K's file %q, stderr %q", code, k, errs)
			}
			_, errs, k, code = run("/etc/passwd", "x")
			if code != 126 || k != "cordon: /etc/passwd: cannot execute\n" || errs != "" {
				t.Errorf("a file that is no program: exit %d, K's file %q, stderr %q", code, k, errs)
			}
			// K of two digits.
			kf, err := os.CreateTemp(t.TempDir(), "k")
			if err != nil {
				t.Fatal(err)
			}
			defer kf.Close()
			argv12 := append(append(emu, tramp, "12"), "/bin/sh", "sh", "-c", "echo twelve >&2")
			cmd12 := exec.Command(argv12[0], argv12[1:]...)
			cmd12.ExtraFiles = make([]*os.File, 10)
			cmd12.ExtraFiles[9] = kf // 12
			if err := cmd12.Run(); err != nil {
				t.Errorf("K=12: %v", err)
			}
			if data, _ := os.ReadFile(kf.Name()); string(data) != "twelve\n" {
				t.Errorf("K=12: its file got %q", data)
			}
			// K not open: dup2 fails, the message goes to the standard
			// error the trampoline has.
			argv := append(append(emu, tramp, "9"), "/bin/true")
			cmd := exec.Command(argv[0], argv[1:]...)
			var eb bytes.Buffer
			cmd.Stderr = &eb
			err = cmd.Run()
			if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 126 || eb.String() != "cordon: /bin/true: cannot execute\n" {
				t.Errorf("K not open: %v, stderr %q", err, eb.String())
			}
			// A signal that kills the program is its end.
			_, _, _, code = run("/bin/sh", "sh", "-c", "kill -TERM $$")
			if code != -1 {
				t.Errorf("a program killed by SIGTERM: exit %d", code)
			}
		})
	}
}
