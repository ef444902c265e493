// Package config reads cordon's settings: how commands are confined.
//
// Settings come from two YAML files, the system's and then the user's,
// each optional:
//
//	/etc/cordon/config.yaml
//	$XDG_CONFIG_HOME/cordon/config.yaml (default ~/.config/cordon/config.yaml)
//
// A setting in the user's file replaces the system's; lists are joined.
// Both files are outside every directory a sandboxed command can write,
// so an agent cannot loosen them. A file that does not parse, or that
// holds a key cordon does not know, is an error with its file and line:
// cordon then runs nothing rather than guess.
//
//	version: 1
//	workspaces: [~/notes, ~/src/*]  # plain directories that are workspaces
//	sandbox:
//	  backend: auto        # auto, bwrap, landlock, seatbelt, token, or none (unconfined)
//	  network: allowlist   # allowlist (the default), on or off: docs/network.md
//	  private_tmp: false   # an empty /tmp of the command's own
//	  writable: [~/.local/share/pnpm]
//	  read_only: [Makefile]          # relative: inside the workspace
//	  hidden: [~/.config/my-tool/token]
//	  sockets: [$XDG_RUNTIME_DIR/my-ide/bridge.sock] # the host's sockets commands may reach
//	  pass_env: [GITHUB_TOKEN]       # kept although it looks like a credential
//	  limits: {cpu_seconds: 0, file_size: 0, open_files: 0, memory: 0}
//	  session: on          # one sandbox per agent session (off: one per command)
//	  session_idle: 30m    # a session's sandbox ends after this long unused
//	log:
//	  max_size: 10485760   # bytes; the audit log is rotated past it
//	  keep: 3              # rotated files kept
//	  syslog: false        # also send each decision to /dev/log (RFC 5424)
//	reviewer:              # off unless a command is given
//	  command: [~/bin/cordon-review, --model, small]
//	  timeout: 10s
//	  pass_env: [OPENAI_API_KEY]     # variables the reviewer gets besides HOME, PATH, USER, LANG
//	snapshots:             # copies of what commands destroy (cordon undo)
//	  max_file: 256MiB     # a larger file is not saved: deleting it is asked about
//	  max_command: 1GiB    # per command
//	  max_total: 5GiB      # the whole store; the oldest snapshots go first
//	  continuous: true     # save untracked and modified files after each command
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/cordonsh/cordon/platform"
)

// SystemFile is the system-wide settings file.
const SystemFile = "/etc/cordon/config.yaml"

// Config is cordon's settings.
type Config struct {
	Version int `yaml:"version"`
	// Workspaces are directories, or patterns of them (~/src/*), that
	// are workspaces although they are not git repositories.
	Workspaces []string  `yaml:"workspaces"`
	Sandbox    Sandbox   `yaml:"sandbox"`
	Snapshots  Snapshots `yaml:"snapshots"`
	Log        Log       `yaml:"log"`
	Reviewer   Reviewer  `yaml:"reviewer"`
	// Files are the files the settings were read from.
	Files []string `yaml:"-"`
}

// Sandbox are the settings of the sandbox; see the package documentation.
type Sandbox struct {
	Backend    string          `yaml:"backend"`
	Network    string          `yaml:"network"`
	PrivateTmp *bool           `yaml:"private_tmp"`
	Writable   []string        `yaml:"writable"`
	ReadOnly   []string        `yaml:"read_only"`
	Hidden     []string        `yaml:"hidden"`
	Sockets    []string        `yaml:"sockets"`
	PassEnv    []string        `yaml:"pass_env"`
	Limits     platform.Limits `yaml:"limits"`
	// Session is "on" (the default when empty) or "off": whether an
	// agent session's commands share one sandbox (package sessionbox).
	Session string `yaml:"session"`
	// SessionIdle ends a session's sandbox after this long without a
	// command; 0 is the default (30 minutes).
	SessionIdle time.Duration `yaml:"session_idle"`
}

// SessionOn reports whether commands of an agent session share one
// sandbox.
func (s *Sandbox) SessionOn() bool { return s.Session != "off" }

// Log are the settings of the audit log (package audit).
type Log struct {
	MaxSize int64 `yaml:"max_size"`
	Keep    int   `yaml:"keep"`
	Syslog  bool  `yaml:"syslog"`
}

// Reviewer names the program asked about asks (package review); off
// without a command.
type Reviewer struct {
	Command []string      `yaml:"command"`
	Timeout time.Duration `yaml:"timeout"`
	PassEnv []string      `yaml:"pass_env"`
}

// Snapshots are the settings of the snapshot store; zero sizes take the
// defaults (package snapshot).
type Snapshots struct {
	MaxFile    Size  `yaml:"max_file"`
	MaxCommand Size  `yaml:"max_command"`
	MaxTotal   Size  `yaml:"max_total"`
	Continuous *bool `yaml:"continuous"`
}

// ContinuousOn reports whether the continuous guard is on (the default).
func (s *Snapshots) ContinuousOn() bool { return s.Continuous == nil || *s.Continuous }

// Size is a number of bytes, written as a number or with a unit (KiB,
// MiB, GiB, TiB; KB, MB, GB, TB are read as the same powers of two).
type Size int64

// UnmarshalYAML reads "256MiB", "1 GiB" or 1048576.
func (z *Size) UnmarshalYAML(n *yaml.Node) error {
	v, err := ParseSize(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %v", n.Line, err)
	}
	*z = v
	return nil
}

// ParseSize reads a size such as "256MiB".
func ParseSize(text string) (Size, error) {
	t := strings.TrimSpace(text)
	num := strings.TrimRightFunc(t, func(r rune) bool { return r < '0' || r > '9' })
	unit := strings.ToLower(strings.TrimSpace(t[len(num):]))
	shift := map[string]uint{"": 0, "b": 0, "k": 10, "kb": 10, "kib": 10, "m": 20, "mb": 20, "mib": 20, "g": 30, "gb": 30, "gib": 30, "t": 40, "tb": 40, "tib": 40}
	sh, ok := shift[unit]
	var n int64
	if _, err := fmt.Sscan(num, &n); err != nil || !ok || n < 0 || n > (1<<62)>>sh {
		return 0, fmt.Errorf("%q: want a size such as 256MiB or 5GiB", text)
	}
	return Size(n << sh), nil
}

// UserFile returns the user's settings file for the environment lookup
// getenv, or "" when there is no home directory.
func UserFile(getenv func(string) string) string {
	if dir := Dir(getenv); dir != "" {
		return filepath.Join(dir, "config.yaml")
	}
	return ""
}

// Dir returns the user's cordon directory, $XDG_CONFIG_HOME/cordon, by
// default ~/.config/cordon: settings and rule files. "" when there is no
// home directory.
func Dir(getenv func(string) string) string {
	return xdg(getenv, "XDG_CONFIG_HOME", ".config")
}

// StateDir is where cordon keeps what it learns about this machine and
// records for the user (the bwrap probe, trusted rule files, the rules'
// cache): $XDG_STATE_HOME/cordon, by default ~/.local/state/cordon,
// outside everything a sandboxed command can write. "" when there is no
// home directory.
func StateDir(getenv func(string) string) string {
	return xdg(getenv, "XDG_STATE_HOME", filepath.Join(".local", "state"))
}

// xdg returns $variable/cordon, or ~/dflt/cordon.
func xdg(getenv func(string) string, variable, dflt string) string {
	if dir := getenv(variable); filepath.IsAbs(dir) {
		return filepath.Join(dir, "cordon")
	}
	if home := getenv("HOME"); filepath.IsAbs(home) {
		return filepath.Join(home, dflt, "cordon")
	}
	return ""
}

// Load reads the system's and the user's settings files; missing files
// are no error. The defaults are backend auto and the network
// allowlist (Network "": see [platform.Spec]).
func Load(getenv func(string) string) (*Config, error) {
	c := &Config{Version: 1, Sandbox: Sandbox{Backend: platform.BackendAuto}}
	for _, file := range []string{SystemFile, UserFile(getenv)} {
		if file == "" {
			continue
		}
		data, err := readBounded(file)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("cannot read the settings in %s: %w", file, err)
		}
		if err := c.merge(file, data); err != nil {
			return nil, err
		}
		c.Files = append(c.Files, file)
	}
	return c, nil
}

// maxFile bounds a settings file, as rule files are bounded: every
// command reads it (a 50 MB one took 0.7 s and 266 MB per command).
const maxFile = 1 << 20

// readBounded reads file, refusing one larger than maxFile.
func readBounded(file string) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFile+1))
	if err == nil && len(data) > maxFile {
		return nil, fmt.Errorf("larger than %d KiB: settings are a few lines (rules go in rule files)", maxFile>>10)
	}
	return data, err
}

// merge decodes one file over c.
func (c *Config) merge(file string, data []byte) error {
	var f Config
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		return yamlError(file, err)
	}
	if f.Version != 0 && f.Version != 1 {
		return fmt.Errorf("%s: version %d: this cordon reads version 1", file, f.Version)
	}
	for _, w := range f.Workspaces {
		if !filepath.IsAbs(w) && !strings.HasPrefix(w, "~/") {
			return fmt.Errorf("%s: workspaces: %q: want an absolute path or one starting with ~/", file, w)
		}
		if _, err := filepath.Match(w, ""); err != nil {
			return fmt.Errorf("%s: workspaces: %q: %v", file, w, err)
		}
	}
	c.Workspaces = append(c.Workspaces, f.Workspaces...)
	s := &f.Sandbox
	if s.Backend != "" {
		if err := platform.CheckBackend(s.Backend); err != nil {
			return fmt.Errorf("%s: sandbox.backend: %v", file, err)
		}
		c.Sandbox.Backend = s.Backend
	}
	switch platform.Network(s.Network) {
	case "":
	case platform.NetworkOn, platform.NetworkOff, platform.NetworkAllowlist:
		c.Sandbox.Network = s.Network
	default:
		return fmt.Errorf("%s: sandbox.network %q: want allowlist, on or off", file, s.Network)
	}
	if s.PrivateTmp != nil {
		c.Sandbox.PrivateTmp = s.PrivateTmp
	}
	switch s.Session {
	case "":
	case "on", "off":
		c.Sandbox.Session = s.Session
	default:
		return fmt.Errorf("%s: sandbox.session %q: want on or off", file, s.Session)
	}
	if s.SessionIdle < 0 {
		return fmt.Errorf("%s: sandbox.session_idle cannot be negative", file)
	}
	if s.SessionIdle != 0 {
		c.Sandbox.SessionIdle = s.SessionIdle
	}
	c.Sandbox.Writable = append(c.Sandbox.Writable, s.Writable...)
	c.Sandbox.ReadOnly = append(c.Sandbox.ReadOnly, s.ReadOnly...)
	c.Sandbox.Hidden = append(c.Sandbox.Hidden, s.Hidden...)
	c.Sandbox.Sockets = append(c.Sandbox.Sockets, s.Sockets...)
	c.Sandbox.PassEnv = append(c.Sandbox.PassEnv, s.PassEnv...)
	if f.Log.MaxSize < 0 || f.Log.Keep < 0 || f.Reviewer.Timeout < 0 {
		return fmt.Errorf("%s: log.max_size, log.keep and reviewer.timeout cannot be negative", file)
	}
	if f.Log.MaxSize != 0 {
		c.Log.MaxSize = f.Log.MaxSize
	}
	if f.Log.Keep != 0 {
		c.Log.Keep = f.Log.Keep
	}
	c.Log.Syslog = c.Log.Syslog || f.Log.Syslog
	if len(f.Reviewer.Command) > 0 {
		if a := f.Reviewer.Command[0]; !filepath.IsAbs(a) && !strings.HasPrefix(a, "~/") && strings.Contains(a, "/") {
			return fmt.Errorf("%s: reviewer.command: %q: want a name looked up on PATH, an absolute path, or one starting with ~/", file, a)
		}
		c.Reviewer.Command = f.Reviewer.Command
	}
	if f.Reviewer.Timeout != 0 {
		c.Reviewer.Timeout = f.Reviewer.Timeout
	}
	c.Reviewer.PassEnv = append(c.Reviewer.PassEnv, f.Reviewer.PassEnv...)
	mergeLimit(&c.Sandbox.Limits.CPU, s.Limits.CPU)
	mergeLimit(&c.Sandbox.Limits.FileSize, s.Limits.FileSize)
	mergeLimit(&c.Sandbox.Limits.Files, s.Limits.Files)
	mergeLimit(&c.Sandbox.Limits.Memory, s.Limits.Memory)
	for dst, v := range map[*Size]Size{&c.Snapshots.MaxFile: f.Snapshots.MaxFile, &c.Snapshots.MaxCommand: f.Snapshots.MaxCommand, &c.Snapshots.MaxTotal: f.Snapshots.MaxTotal} {
		if v != 0 {
			*dst = v
		}
	}
	if f.Snapshots.Continuous != nil {
		c.Snapshots.Continuous = f.Snapshots.Continuous
	}
	return nil
}

func mergeLimit(dst *uint64, v uint64) {
	if v != 0 {
		*dst = v
	}
}

// yamlError turns a decoding error into "file:line: message" lines, the
// form editors and people read.
func yamlError(file string, err error) error {
	var msgs []string
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msgs = te.Errors
	} else {
		msgs = []string{strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	for i, m := range msgs {
		if rest, ok := strings.CutPrefix(m, "line "); ok {
			if n, msg, ok := strings.Cut(rest, ": "); ok {
				m = n + ": " + msg
			}
		} else {
			m = " " + m
		}
		if j := strings.Index(m, " in type "); j >= 0 {
			m = m[:j]
		}
		msgs[i] = file + ":" + m
	}
	return errors.New(strings.Join(msgs, "\n"))
}
