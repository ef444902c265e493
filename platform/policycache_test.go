package platform

import (
	"bytes"
	"fmt"
	"hash/crc32"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// cacheCase is a home, a scratch directory, a workspace and a state
// directory outside them, with a spec over them.
type cacheCase struct {
	t                       *testing.T
	root, home, scratch, ws string
	state                   string
	spec                    *Spec
	env                     []string
}

func newCacheCase(t *testing.T) *cacheCase {
	if !canStamp {
		t.Skip("no policy cache on this system")
	}
	old := racyMargin
	racyMargin = 50 * time.Millisecond
	t.Cleanup(func() { racyMargin = old })
	root := tree(t, "home/.ssh/id_rsa", "home/.config/gh/hosts.yml", "home/.cache/", "home/a/", "home/b/",
		"tmp/build/", "tmp/ssh-OLD/", "proj/.git/HEAD", "proj/.git/config", "proj2/", "state/")
	c := &cacheCase{t: t, root: root, home: root + "/home", scratch: root + "/tmp", ws: root + "/proj", state: root + "/state/cordon"}
	// The entries name the home through a variable: "~/" entries are
	// looked for in the account's home as well, which other programs
	// change at any time.
	c.env = []string{"HOME=" + c.home, "H=" + c.home}
	c.spec = &Spec{
		Workspace:      c.ws,
		Scratch:        []string{c.scratch},
		ScratchPrivate: []string{"ssh-*"},
		Writable:       []string{"$H/.cache"},
		ReadOnly:       []string{".git/config"},
		Hidden:         []string{"$H/.ssh", "$H/.netrc", "$H/.config/gh/*", "$H/.config/tok"},
		Visible:        []string{"$H/.ssh/*.pub"},
	}
	return c
}

// policy resolves the case's spec with the cache and checks that the
// answer is the one resolved afresh.
func (c *cacheCase) policy(cacheDir string) *Policy {
	c.t.Helper()
	got, err := NewPolicyCached(c.spec, c.env, cacheDir)
	if err != nil {
		c.t.Fatal(err)
	}
	want, err := NewPolicy(c.spec, c.env)
	if err != nil {
		c.t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		c.t.Fatalf("cached policy\n got %+v\nwant %+v", got, want)
	}
	return got
}

// settle lets the witnesses age past the racy margin, then resolves
// the policy so that the cache holds it; again while a witness changed
// too recently (the test's directory is in a busy /tmp).
func (c *cacheCase) settle() {
	c.t.Helper()
	for range 50 {
		time.Sleep(2 * racyMargin)
		c.policy(c.state)
		if bytes.Contains(c.read(), []byte("\nk ")) {
			return
		}
	}
	c.t.Fatal("the cache was not written")
}

func (c *cacheCase) file() string {
	c.t.Helper()
	return cacheFile(c.state, c.spec.Workspace, c.home)
}

func (c *cacheCase) read() []byte {
	c.t.Helper()
	data, err := os.ReadFile(c.file())
	if err != nil {
		c.t.Fatal(err)
	}
	return data
}

// forge rewrites the body of the cache file by edit, with the checksum
// that goes with it: what someone who can write the state directory can
// do.
func forge(t *testing.T, file string, edit func(string) string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.SplitN(string(data), "\n", 3)
	body := []byte(edit(parts[2]))
	out := fmt.Sprintf("%s\ncrc %08x\n%s", parts[0], crc32.ChecksumIEEE(body), body)
	if err := os.WriteFile(file, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestPolicyCacheUsed shows that a second resolution takes the host
// paths from the cache: a path added to it (with a valid checksum, in
// the user's own state directory) shows in the policy. A change in the
// home directory that no answer depended on leaves the cache in use.
func TestPolicyCacheUsed(t *testing.T) {
	c := newCacheCase(t)
	c.settle()
	forge(t, c.file(), func(b string) string { return b + "h /cache-was-read\n" })
	used := func() {
		t.Helper()
		p, err := NewPolicyCached(c.spec, c.env, c.state)
		if err != nil || !slices.Contains(p.Hidden, "/cache-was-read") {
			t.Fatalf("the cache was not used: %v %q", err, p.Hidden)
		}
	}
	used()
	os.WriteFile(c.home+"/unrelated", nil, 0o644)
	os.Mkdir(c.home+"/.config/other", 0o755)
	used()
	used()
}

// TestPolicyCacheLargeListingKept shows that a scratch directory of many
// entries, changed after the cache was written, is kept listed in the
// file by the next resolution: it was listed again at every command
// while fewer than maxRelisted directories had changed.
func TestPolicyCacheLargeListingKept(t *testing.T) {
	c := newCacheCase(t)
	// A scratch directory that only its listing depends on.
	big := c.root + "/big"
	os.Mkdir(big, 0o755)
	c.spec.Scratch = append(c.spec.Scratch, big)
	c.settle()
	// The file is also written again when a witness changed without
	// changing the answer (the test's directory is in a busy /tmp):
	// more than once, each time after a resolution that wrote nothing.
	for round := range 5 {
		for before := []byte(nil); !bytes.Equal(before, c.read()); {
			before = c.read()
			time.Sleep(2 * racyMargin)
			c.policy(c.state)
		}
		for i := range maxRelistedEntries {
			os.WriteFile(fmt.Sprintf("%s/f%d-%d", big, round, i), nil, 0o644)
		}
		name := fmt.Sprintf("large%d", round)
		os.Mkdir(big+"/"+name, 0o755)
		time.Sleep(3 * racyMargin)
		c.policy(c.state)
		if !bytes.Contains(c.read(), []byte("\ne D "+name+"\n")) {
			t.Fatalf("round %d: the large listing was not kept in the cache file", round)
		}
	}
}

// TestPolicyCacheInvalidated changes, after the cache was made, each
// kind of thing the policy depends on; the policy must then be the one
// resolved afresh ([cacheCase.policy] compares them).
func TestPolicyCacheInvalidated(t *testing.T) {
	listen := func(t *testing.T, path string) {
		l, err := net.Listen("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
	}
	for _, tc := range []struct {
		name   string
		change func(c *cacheCase)
		check  func(c *cacheCase, p *Policy) bool
	}{
		{"new credential file in the home directory", func(c *cacheCase) {
			os.WriteFile(c.home+"/.netrc", []byte("machine x password y"), 0o600)
		}, func(c *cacheCase, p *Policy) bool { return slices.Contains(p.Hidden, c.home+"/.netrc") }},
		{"new credential file matched by a glob", func(c *cacheCase) {
			os.WriteFile(c.home+"/.config/gh/token", nil, 0o600)
		}, func(c *cacheCase, p *Policy) bool { return slices.Contains(p.Hidden, c.home+"/.config/gh/token") }},
		{"credential directory made", func(c *cacheCase) {
			os.RemoveAll(c.home + "/.config/gh")
			os.MkdirAll(c.home+"/.config/gh/new", 0o700)
		}, func(c *cacheCase, p *Policy) bool {
			return slices.Contains(p.Hidden, c.home+"/.config/gh/new") && !slices.Contains(p.Hidden, c.home+"/.config/gh/hosts.yml")
		}},
		{"link to a credential pointed elsewhere", func(c *cacheCase) {
			os.Symlink(c.home+"/a", c.home+"/.config/tok")
			time.Sleep(2 * racyMargin)
			c.settle()
			os.Remove(c.home + "/.config/tok")
			os.Symlink(c.home+"/b", c.home+"/.config/tok")
		}, func(c *cacheCase, p *Policy) bool {
			return slices.Contains(p.Hidden, c.home+"/b") && !slices.Contains(p.Hidden, c.home+"/a")
		}},
		{"new socket in the scratch directory", func(c *cacheCase) {
			listen(t, c.scratch+"/new.sock")
		}, func(c *cacheCase, p *Policy) bool {
			p.SearchSockets()
			return slices.Contains(p.HostSockets, c.scratch+"/new.sock")
		}},
		{"new socket one level down", func(c *cacheCase) {
			listen(t, c.scratch+"/build/s")
		}, func(c *cacheCase, p *Policy) bool {
			p.SearchSockets()
			return slices.Contains(p.HostSockets, c.scratch+"/build/s")
		}},
		{"new socket in the home directory", func(c *cacheCase) {
			listen(t, c.home+"/a/ctl")
		}, func(c *cacheCase, p *Policy) bool {
			p.SearchSockets()
			return slices.Contains(p.HostSockets, c.home+"/a/ctl")
		}},
		{"new private entry in the scratch directory", func(c *cacheCase) {
			os.Mkdir(c.scratch+"/ssh-NEW", 0o700)
		}, func(c *cacheCase, p *Policy) bool { return slices.Contains(p.Hidden, c.scratch+"/ssh-NEW") }},
		{"a rule hides one more path", func(c *cacheCase) {
			c.spec.Hidden = append(c.spec.Hidden, "$H/a")
		}, func(c *cacheCase, p *Policy) bool { return slices.Contains(p.Hidden, c.home+"/a") }},
		// git's store helper keeps the person's credentials at a path
		// their git configuration names: hidden as ~/.git-credentials.
		{"the person's git configuration names a store file", func(c *cacheCase) {
			os.WriteFile(c.home+"/a/git-creds", []byte("https://me:secret@git.example\n"), 0o600)
			// (Spelled as git reads it: "--file" across a line's end.)
			os.WriteFile(c.home+"/.gitconfig", []byte("[credential]\n\thelper = store --fi\\\nle=~/a/git-creds\n"), 0o600)
		}, func(c *cacheCase, p *Policy) bool { return slices.Contains(p.Hidden, c.home+"/a/git-creds") }},
		{"an included file names a cache socket", func(c *cacheCase) {
			os.WriteFile(c.home+"/.gitconfig", []byte("[include]\n\tpath = ~/b/inc\n"), 0o600)
			os.WriteFile(c.home+"/b/sock", nil, 0o600)
			c.settle()
			os.WriteFile(c.home+"/b/inc", []byte("[credential \"https://git.example\"]\n\thelper = \"!git credential-cache --socket $HOME/b/sock\"\n"), 0o600)
		}, func(c *cacheCase, p *Policy) bool { return slices.Contains(p.Hidden, c.home+"/b/sock") }},
		{"a variable the rules name", func(c *cacheCase) {
			c.env = append(c.env, "H2="+c.home+"/b")
			c.spec.Hidden = append(c.spec.Hidden, "$H2")
			c.settle()
			c.env = append(c.env, "H2="+c.home+"/a")
		}, func(c *cacheCase, p *Policy) bool {
			return slices.Contains(p.Hidden, c.home+"/a") && !slices.Contains(p.Hidden, c.home+"/b")
		}},
		{"the workspace makes a credential its own", func(c *cacheCase) {
			// A link in a writable directory is not followed: with the
			// workspace elsewhere, the same link is.
			os.Symlink(c.home+"/a", c.root+"/proj2/tok")
			c.spec.Hidden = append(c.spec.Hidden, c.root+"/proj2/tok")
			c.spec.Workspace = c.root + "/proj2"
			c.settle()
			c.spec.Workspace = c.ws
		}, func(c *cacheCase, p *Policy) bool { return slices.Contains(p.Hidden, c.home+"/a") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCacheCase(t)
			c.settle()
			if p := c.policy(c.state); tc.check(c, p) {
				t.Fatal("the check holds before the change")
			}
			tc.change(c)
			if p := c.policy(c.state); !tc.check(c, p) {
				t.Errorf("after the change, the policy was not made afresh: hidden %q, sockets %q", p.Hidden, p.HostSockets)
			}
		})
	}
}

// TestPolicyCacheRejected shows that a cache file that is not whole,
// not well formed, readable by others or in a place sandboxed commands
// can write is not used.
func TestPolicyCacheRejected(t *testing.T) {
	drop := func(b string) string { // the forger's aim: ~/.ssh readable
		var out []string
		for _, l := range strings.SplitAfter(b, "\n") {
			if !strings.HasPrefix(l, "h ") {
				out = append(out, l)
			}
		}
		return strings.Join(out, "")
	}
	for _, tc := range []struct {
		name   string
		tamper func(c *cacheCase) string // returns the cache directory to use
	}{
		{"edited without the checksum", func(c *cacheCase) string {
			data := c.read()
			os.WriteFile(c.file(), []byte(drop(string(data))), 0o600)
			return c.state
		}},
		{"garbage", func(c *cacheCase) string {
			forge(c.t, c.file(), func(string) string { return "k x\nw 1 2\nh relative\n" })
			return c.state
		}},
		{"readable by others", func(c *cacheCase) string {
			forge(c.t, c.file(), drop)
			os.Chmod(c.file(), 0o644)
			return c.state
		}},
		{"a link", func(c *cacheCase) string {
			f := c.file()
			forge(c.t, f, drop)
			os.Rename(f, c.state+"/elsewhere")
			os.Symlink(c.state+"/elsewhere", f)
			return c.state
		}},
		{"in a state directory in the workspace", func(c *cacheCase) string {
			// The same file, forged, where a sandboxed command could
			// have written it: in the workspace and in scratch.
			forge(c.t, c.file(), drop)
			for _, dir := range []string{c.ws + "/.state", c.scratch + "/state"} {
				os.MkdirAll(dir+"/policy", 0o700)
				data := c.read()
				os.WriteFile(filepath.Join(dir, "policy", filepath.Base(c.file())), data, 0o600)
			}
			os.Remove(c.file())
			return c.ws + "/.state"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCacheCase(t)
			c.settle()
			dir := tc.tamper(c)
			p := c.policy(dir)
			if !slices.Contains(p.Hidden, c.home+"/.ssh") {
				t.Fatalf("the tampered cache was used: hidden %q", p.Hidden)
			}
			if dir == c.ws+"/.state" {
				if p := c.policy(c.scratch + "/state"); !slices.Contains(p.Hidden, c.home+"/.ssh") {
					t.Fatalf("the cache in scratch was used: hidden %q", p.Hidden)
				}
			}
		})
	}
}

// TestPolicyCacheWorkspaces checks that each workspace has a cache of its
// own, and that a directory changed within the racy margin is looked
// into again, whatever its stamp.
func TestPolicyCacheWorkspaces(t *testing.T) {
	c := newCacheCase(t)
	c.settle()
	c.spec.Workspace = c.root + "/proj2"
	time.Sleep(2 * racyMargin)
	c.policy(c.state)
	files, _ := filepath.Glob(filepath.Join(c.state, "policy", "*"))
	if len(files) != 2 {
		t.Fatalf("cache files %q, want one per workspace", files)
	}
	// Every witness recent: their stamps are not trusted, their answers
	// are looked at again.
	racyMargin = 200 * 365 * 24 * time.Hour
	os.RemoveAll(filepath.Join(c.state, "policy"))
	c.policy(c.state)
	for _, l := range strings.Split(string(c.read()), "\n") {
		if strings.HasPrefix(l, "w ") && strings.Contains(l, " -e") && !strings.Contains(l, " -er") {
			t.Errorf("a recent witness taken as settled: %s", l)
		}
	}
	os.WriteFile(c.home+"/.netrc", nil, 0o600)
	if p := c.policy(c.state); !slices.Contains(p.Hidden, c.home+"/.netrc") {
		t.Errorf("a change behind a recent witness was not seen: %q", p.Hidden)
	}
}

// FuzzParseCache feeds the cache parser any body: it must not panic,
// and what it accepts must encode to a body it accepts again.
func FuzzParseCache(f *testing.F) {
	f.Add([]byte("k abc\nw 1 2 3 4 -e /home\nl 0123456789abcdef0123456789abcdef\nn 1 5 2147483648 .ssh\nn 1 6 134217728 l\nt /x\nf 1 2 3 4 /etc/passwd\nh /home/.ssh\nm /home/.netrc\nd 1 2 3 4 /tmp\ne D a\ne S \"b\\nc\"\n"))
	f.Add([]byte("t x\nn 1 2 3 a\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		d, ok := parseCache(body)
		if !ok {
			return
		}
		if _, ok := parseCache(d.encode()); !ok {
			t.Fatalf("the encoding of an accepted body is refused:\n%s", d.encode())
		}
	})
}
