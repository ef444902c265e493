package release

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The systems a release is built for, as GOOS_GOARCH in the archives'
// names.
var platforms = []struct{ goos, goarch string }{
	{"linux", "amd64"}, {"linux", "arm64"},
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"windows", "amd64"}, {"windows", "arm64"},
}

// The shims the .deb and .rpm install, as links to /usr/bin/cordon.
var shimNames = []string{"bash", "sh", "zsh", "dash"}

const shimsDir = "/usr/lib/cordon/shims"

// dist is the snapshot's dist directory, from CORDON_RELEASE_DIST; the
// test is skipped without it.
func dist(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("CORDON_RELEASE_DIST")
	if dir == "" {
		t.Skip("CORDON_RELEASE_DIST is not set: scripts/test.sh builds a snapshot release (scripts/release-snapshot.sh DIST) and sets it")
	}
	if _, err := os.Stat(filepath.Join(dir, "checksums.txt")); err != nil {
		t.Fatalf("CORDON_RELEASE_DIST=%s holds no release: %v", dir, err)
	}
	return dir
}

func archiveName(goos, goarch string) string {
	if goos == "windows" {
		return "cordon_" + goos + "_" + goarch + ".zip"
	}
	return "cordon_" + goos + "_" + goarch + ".tar.gz"
}

// metadata is what GoReleaser wrote about the release it made.
type metadata struct {
	Version string `json:"version"`
	Commit  string `json:"commit"`
	Date    string `json:"date"`
}

func readMetadata(t *testing.T, dir string) metadata {
	t.Helper()
	var m metadata
	data, err := os.ReadFile(filepath.Join(dir, "metadata.json"))
	if err == nil {
		err = json.Unmarshal(data, &m)
	}
	if err != nil || m.Version == "" {
		t.Fatalf("metadata.json: %v (version %q)", err, m.Version)
	}
	return m
}

// checksums parses checksums.txt: file name to SHA-256 in hex.
func checksums(t *testing.T, dir string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	sums := map[string]string{}
	line := regexp.MustCompile(`^([0-9a-f]{64})  (\S+)$`)
	for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		m := line.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("checksums.txt: malformed line %q", l)
		}
		if _, dup := sums[m[2]]; dup {
			t.Fatalf("checksums.txt: %s twice", m[2])
		}
		sums[m[2]] = m[1]
	}
	return sums
}

func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// TestChecksums: checksums.txt lists every artifact, each with its
// SHA-256, and nothing else.
func TestChecksums(t *testing.T) {
	dir := dist(t)
	sums := checksums(t, dir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var artifacts []string
	for _, e := range entries {
		switch name := e.Name(); {
		case !e.Type().IsRegular():
		case name == "checksums.txt", strings.HasSuffix(name, ".json"), strings.HasSuffix(name, ".yaml"):
		default:
			artifacts = append(artifacts, name)
		}
	}
	for _, name := range artifacts {
		want, ok := sums[name]
		if !ok {
			t.Errorf("%s is not in checksums.txt", name)
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if got := sha256Hex(data); got != want {
			t.Errorf("%s: sha256 %s, checksums.txt says %s", name, got, want)
		}
	}
	if len(sums) != len(artifacts) {
		t.Errorf("checksums.txt lists %d files, dist holds %d artifacts: %v", len(sums), len(artifacts), artifacts)
	}
	// 6 archives, a .deb and an .rpm for each Linux architecture.
	for _, p := range platforms {
		if _, ok := sums[archiveName(p.goos, p.goarch)]; !ok {
			t.Errorf("no %s in checksums.txt", archiveName(p.goos, p.goarch))
		}
	}
	if n := len(artifacts); n != len(platforms)+4 {
		t.Errorf("%d artifacts, want %d (archives, two .deb, two .rpm): %v", n, len(platforms)+4, artifacts)
	}
}

// A file in an archive or package.
type entry struct {
	name, link string
	typ        byte // tar.TypeReg, tar.TypeSymlink, tar.TypeDir
	mode       os.FileMode
	uid        int
	data       []byte
}

func readTarGz(data []byte) ([]entry, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(zr)
	var out []entry
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		body, err := io.ReadAll(tr)
		if err != nil {
			return nil, err
		}
		out = append(out, entry{name: h.Name, link: h.Linkname, typ: h.Typeflag, mode: os.FileMode(h.Mode).Perm(), uid: h.Uid, data: body})
	}
}

func readZip(data []byte) ([]entry, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, err
	}
	var out []entry
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			return nil, err
		}
		body, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return nil, err
		}
		out = append(out, entry{name: f.Name, typ: tar.TypeReg, mode: f.Mode().Perm(), data: body})
	}
	return out, nil
}

// readArchive reads the release archive for goos/goarch.
func readArchive(t *testing.T, dir, goos, goarch string) []entry {
	t.Helper()
	name := archiveName(goos, goarch)
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	read := readTarGz
	if goos == "windows" {
		read = readZip
	}
	entries, err := read(data)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return entries
}

// checkBinary checks that data is an executable for goos/goarch, and on
// Linux a static one (no interpreter: it runs on any distribution).
func checkBinary(goos, goarch string, data []byte) error {
	r := bytes.NewReader(data)
	switch goos {
	case "linux":
		f, err := elf.NewFile(r)
		if err != nil {
			return err
		}
		want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[goarch]
		if f.Machine != want || f.Type != elf.ET_EXEC {
			return fmt.Errorf("ELF %v %v, want %v executable", f.Machine, f.Type, want)
		}
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
				return fmt.Errorf("dynamically linked (%v): built with cgo?", p.Type)
			}
		}
	case "darwin":
		f, err := macho.NewFile(r)
		if err != nil {
			return err
		}
		want := map[string]macho.Cpu{"amd64": macho.CpuAmd64, "arm64": macho.CpuArm64}[goarch]
		if f.Cpu != want || f.Type != macho.TypeExec {
			return fmt.Errorf("Mach-O %v type %v, want %v executable", f.Cpu, f.Type, want)
		}
	case "windows":
		f, err := pe.NewFile(r)
		if err != nil {
			return err
		}
		want := map[string]uint16{"amd64": pe.IMAGE_FILE_MACHINE_AMD64, "arm64": pe.IMAGE_FILE_MACHINE_ARM64}[goarch]
		if f.Machine != want {
			return fmt.Errorf("PE machine %#x, want %#x", f.Machine, want)
		}
	}
	return nil
}

// TestArchives: each archive holds exactly the binary for its system
// (executable, static on Linux), README.md and LICENSE, at its top level
// (install.sh unpacks cordon from there).
func TestArchives(t *testing.T) {
	dir := dist(t)
	for _, p := range platforms {
		t.Run(p.goos+"_"+p.goarch, func(t *testing.T) {
			bin := "cordon"
			if p.goos == "windows" {
				bin = "cordon.exe"
			}
			got := map[string]entry{}
			for _, e := range readArchive(t, dir, p.goos, p.goarch) {
				got[e.name] = e
			}
			if len(got) != 3 {
				t.Errorf("entries %v, want %s, README.md, LICENSE", keys(got), bin)
			}
			b, ok := got[bin]
			switch {
			case !ok || b.typ != tar.TypeReg:
				t.Fatalf("no %s at the top of the archive: %v", bin, keys(got))
			case p.goos != "windows" && b.mode&0o111 != 0o111:
				t.Errorf("%s has mode %v, want executable", bin, b.mode)
			}
			if err := checkBinary(p.goos, p.goarch, b.data); err != nil {
				t.Errorf("%s: %v", bin, err)
			}
			if !bytes.HasPrefix(got["README.md"].data, []byte("# cordon\n")) {
				t.Errorf("README.md is not cordon's README")
			}
			if !bytes.Contains(got["LICENSE"].data, []byte("Apache License")) {
				t.Errorf("LICENSE is not the Apache license")
			}
		})
	}
}

// arMembers splits a Unix ar archive (a .deb) into its members.
func arMembers(data []byte) (map[string][]byte, error) {
	if !bytes.HasPrefix(data, []byte("!<arch>\n")) {
		return nil, fmt.Errorf("not an ar archive")
	}
	members := map[string][]byte{}
	for off := 8; off < len(data); {
		if off+60 > len(data) {
			return nil, fmt.Errorf("truncated member header at %d", off)
		}
		h := data[off : off+60]
		name := strings.TrimSuffix(strings.TrimRight(string(h[:16]), " "), "/")
		size, err := strconv.Atoi(strings.TrimSpace(string(h[48:58])))
		off += 60
		if err != nil || size < 0 || off+size > len(data) {
			return nil, fmt.Errorf("member %q: bad size %q", name, h[48:58])
		}
		members[name] = data[off : off+size]
		off += size + size%2
	}
	return members, nil
}

// TestDeb: each .deb installs /usr/bin/cordon, the shims in
// /usr/lib/cordon/shims as links to it and the docs, owned by root, and
// depends on bubblewrap; dpkg-deb, where installed, reads it the same way.
func TestDeb(t *testing.T) {
	dir := dist(t)
	for _, arch := range []string{"amd64", "arm64"} {
		t.Run(arch, func(t *testing.T) {
			debs, _ := filepath.Glob(filepath.Join(dir, "cordon_*_"+arch+".deb"))
			if len(debs) != 1 {
				t.Fatalf("want one cordon_*_%s.deb in %s, found %v", arch, dir, debs)
			}
			data, err := os.ReadFile(debs[0])
			if err != nil {
				t.Fatal(err)
			}
			members, err := arMembers(data)
			if err != nil {
				t.Fatalf("%s: %v", debs[0], err)
			}
			if string(members["debian-binary"]) != "2.0\n" {
				t.Errorf("debian-binary %q", members["debian-binary"])
			}
			control, err := readTarGz(members["control.tar.gz"])
			if err != nil {
				t.Fatalf("control.tar.gz (gzip, as .goreleaser.yaml asks): %v", err)
			}
			fields := map[string]string{}
			for _, e := range control {
				if e.name == "./control" || e.name == "control" {
					for _, l := range strings.Split(string(e.data), "\n") {
						if k, v, ok := strings.Cut(l, ": "); ok {
							fields[k] = v
						}
					}
				}
			}
			if fields["Package"] != "cordon" || fields["Architecture"] != arch || fields["Version"] == "" {
				t.Errorf("control: Package %q Architecture %q Version %q", fields["Package"], fields["Architecture"], fields["Version"])
			}
			if !regexp.MustCompile(`(^|, )bubblewrap( |,|$)`).MatchString(fields["Depends"]) {
				t.Errorf("control: Depends %q, want bubblewrap", fields["Depends"])
			}

			files, err := readTarGz(members["data.tar.gz"])
			if err != nil {
				t.Fatalf("data.tar.gz: %v", err)
			}
			got := map[string]entry{}
			for _, e := range files {
				if e.uid != 0 {
					t.Errorf("%s is owned by uid %d, want root", e.name, e.uid)
				}
				if e.typ != tar.TypeDir {
					got[strings.TrimPrefix(e.name, ".")] = e
				}
			}
			want := []string{"/usr/bin/cordon", "/usr/share/doc/cordon/LICENSE", "/usr/share/doc/cordon/README.md"}
			for _, name := range shimNames {
				want = append(want, shimsDir+"/"+name)
				if e := got[shimsDir+"/"+name]; e.typ != tar.TypeSymlink || e.link != "/usr/bin/cordon" {
					t.Errorf("%s/%s: type %q link %q, want a symlink to /usr/bin/cordon", shimsDir, name, e.typ, e.link)
				}
			}
			sort.Strings(want)
			if fmt.Sprint(keys(got)) != fmt.Sprint(want) {
				t.Errorf("files %v, want %v", keys(got), want)
			}
			if b := got["/usr/bin/cordon"]; b.typ != tar.TypeReg || b.mode != 0o755 {
				t.Errorf("/usr/bin/cordon: type %q mode %v, want a file 0755", b.typ, b.mode)
			} else if err := checkBinary("linux", arch, b.data); err != nil {
				t.Errorf("/usr/bin/cordon: %v", err)
			}

			if _, err := exec.LookPath("dpkg-deb"); err == nil {
				out, err := exec.Command("dpkg-deb", "--field", debs[0], "Depends").CombinedOutput()
				if err != nil || !strings.Contains(string(out), "bubblewrap") {
					t.Errorf("dpkg-deb --field Depends: %v %s", err, out)
				}
			}
		})
	}
}

// TestRPM: each .rpm is an RPM whose header requires bubblewrap and
// lists the shims' directory (the header is not compressed; the payload
// is).
func TestRPM(t *testing.T) {
	dir := dist(t)
	for _, arch := range []string{"x86_64", "aarch64"} {
		rpms, _ := filepath.Glob(filepath.Join(dir, "cordon-*."+arch+".rpm"))
		if len(rpms) != 1 {
			t.Errorf("want one cordon-*.%s.rpm in %s, found %v", arch, dir, rpms)
			continue
		}
		data, err := os.ReadFile(rpms[0])
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(data, []byte{0xed, 0xab, 0xee, 0xdb}) {
			t.Errorf("%s: no RPM lead", rpms[0])
		}
		for _, want := range []string{"bubblewrap", shimsDir + "/", "/usr/bin/"} {
			if !bytes.Contains(data, []byte(want)) {
				t.Errorf("%s: header has no %q", rpms[0], want)
			}
		}
	}
}

// TestPackageManifests: the Homebrew cask and the Scoop manifest point at
// the archives with the checksums of checksums.txt.
func TestPackageManifests(t *testing.T) {
	dir := dist(t)
	sums := checksums(t, dir)
	cask, err := os.ReadFile(filepath.Join(dir, "homebrew", "Casks", "cordon.rb"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range platforms[:4] {
		name := archiveName(p.goos, p.goarch)
		re := regexp.MustCompile(`url "https://github\.com/cordonsh/cordon/releases/download/[^"]+/` + regexp.QuoteMeta(name) + `"\s+sha256 "` + sums[name] + `"`)
		if !re.Match(cask) {
			t.Errorf("the cask has no url for %s with sha256 %s", name, sums[name])
		}
	}
	if !bytes.Contains(cask, []byte(`binary "cordon"`)) {
		t.Errorf("the cask installs no cordon binary")
	}
	// The binary is not notarized: without its quarantine removed,
	// Gatekeeper refuses to start it, and every command with it.
	quarantine := regexp.MustCompile(`(?s)postflight do.*if OS\.mac\?.*system_command "/usr/bin/xattr", args: \["-dr", "com\.apple\.quarantine", "#\{staged_path\}/cordon"\]`)
	if !quarantine.Match(cask) {
		t.Errorf("the cask does not remove the quarantine from the binary on macOS:\n%s", cask)
	}

	var scoop struct {
		Architecture map[string]struct {
			URL  string   `json:"url"`
			Bin  []string `json:"bin"`
			Hash string   `json:"hash"`
		} `json:"architecture"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "scoop", "cordon.json"))
	if err == nil {
		err = json.Unmarshal(data, &scoop)
	}
	if err != nil {
		t.Fatalf("scoop/cordon.json: %v", err)
	}
	for arch, goarch := range map[string]string{"64bit": "amd64", "arm64": "arm64"} {
		a := scoop.Architecture[arch]
		name := archiveName("windows", goarch)
		if !strings.HasSuffix(a.URL, "/"+name) || a.Hash != sums[name] || fmt.Sprint(a.Bin) != "[cordon.exe]" {
			t.Errorf("scoop %s: url %q hash %q bin %v, want .../%s, %s, [cordon.exe]", arch, a.URL, a.Hash, a.Bin, name, sums[name])
		}
	}
}

// TestVersion: the binary for this machine runs, and cordon version
// prints the release's version, commit and build date.
func TestVersion(t *testing.T) {
	dir := dist(t)
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skipf("no tar.gz release for %s", runtime.GOOS)
	}
	m := readMetadata(t, dir)
	bin := extractCordon(t, dir, runtime.GOOS, runtime.GOARCH)
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatalf("cordon version: %v", err)
	}
	re := regexp.MustCompile(`^cordon (\S+) \(commit ([0-9a-f]{40}), built (\S+)\)\n$`)
	got := re.FindStringSubmatch(string(out))
	if got == nil {
		t.Fatalf("cordon version printed %q, want cordon VERSION (commit HASH, built DATE)", out)
	}
	if got[1] != m.Version || got[2] != m.Commit {
		t.Errorf("cordon version: %s commit %s, metadata.json says %s commit %s", got[1], got[2], m.Version, m.Commit)
	}
	built, err1 := time.Parse(time.RFC3339, got[3])
	want, err2 := time.Parse(time.RFC3339, m.Date)
	if err1 != nil || err2 != nil || !built.Equal(want.Truncate(time.Second)) {
		t.Errorf("cordon version: built %s, metadata.json says %s (%v, %v)", got[3], m.Date, err1, err2)
	}
	if !strings.Contains(m.Version, "SNAPSHOT") {
		t.Errorf("version %q: not a snapshot's", m.Version)
	}
}

// extractCordon writes the cordon binary of the goos/goarch archive to a
// temporary directory and returns its path.
func extractCordon(t *testing.T, dir, goos, goarch string) string {
	t.Helper()
	for _, e := range readArchive(t, dir, goos, goarch) {
		if e.name == "cordon" {
			bin := filepath.Join(t.TempDir(), "cordon")
			if err := os.WriteFile(bin, e.data, 0o755); err != nil {
				t.Fatal(err)
			}
			return bin
		}
	}
	t.Fatalf("no cordon in %s", archiveName(goos, goarch))
	return ""
}

func keys(m map[string]entry) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
