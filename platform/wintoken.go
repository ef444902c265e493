package platform

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// BackendToken is a restricted token and a job object (Windows): see
// [PlanWindows] and docs/windows.md.
const BackendToken = "token"

// Restricted-token flags (CreateRestrictedToken; not in x/sys/windows).
const (
	tokenDisableMaxPrivilege = 0x1
	tokenLUAToken            = 0x4
	tokenWriteRestricted     = 0x8
)

// File access masks of the ACEs cordon adds.
const (
	// aceModify is read, write, execute and delete of the object itself,
	// not FILE_DELETE_CHILD: what Explorer calls Modify.
	aceModify = 0x1301bf
	// aceNoWrite is every right that changes an object or its security:
	// write and append data, write extended and plain attributes, delete,
	// delete a child, change the DACL or the owner.
	aceNoWrite = 0xd0156
	// aceNoDelete is DELETE alone: the object cannot be renamed away.
	aceNoDelete = 0x10000
)

// Well-known SIDs of the token's restricting set.
const (
	sidEveryone = "S-1-1-0"
	// sidLogon stands for this logon session's SID (S-1-5-5-X-Y), read
	// from cordon's own token when the program starts.
	sidLogon = "logon"
)

// A WindowsPlan is how the restricted-token backend confines a program
// by a [Policy]: a write-restricted token whose writes must also be
// granted to one of its restricting SIDs, ACEs that grant the
// workspace's own SID write where the policy allows it and deny it where
// the policy keeps things read-only, and a job object.
type WindowsPlan struct {
	// Flags are CreateRestrictedToken's flags, and their names.
	Flags     uint32   `json:"flags"`
	FlagNames []string `json:"flag_names"`
	// SID is the workspace's own SID (a restricting SID of the token).
	SID string `json:"sid"`
	// Temp is the workspace's own temporary folder, which TEMP and TMP
	// name for the program in place of the person's %TEMP% (left out of
	// the grants: an inheritable ACE set on it reaches every file in it,
	// on the first command of each workspace), or "" when there is none
	// (no LOCALAPPDATA).
	Temp string `json:"temp,omitempty"`
	// Restricting are the token's restricting SIDs ("logon" is this
	// logon session's).
	Restricting []string `json:"restricting_sids"`
	// ACEs are the entries added to files' and directories' DACLs.
	ACEs []WindowsACE `json:"aces"`
	// Job is the job object's limits.
	Job WindowsJob `json:"job"`
	// NotEnforced is what the policy asks that this backend cannot do.
	NotEnforced []string `json:"not_enforced"`
}

// A WindowsACE is one entry added to a path's DACL, in SDDL.
type WindowsACE struct {
	Path string `json:"path"`
	ACE  string `json:"ace"`
	Why  string `json:"why"`
}

// A WindowsJob is the job object every program of a command runs in.
type WindowsJob struct {
	// LimitFlags are JOBOBJECT_EXTENDED_LIMIT_INFORMATION's, and their
	// names.
	LimitFlags uint32   `json:"limit_flags"`
	FlagNames  []string `json:"flag_names"`
	// ProcessMemory is the most committed memory of one process, in
	// bytes (0: no limit).
	ProcessMemory uint64 `json:"process_memory,omitempty"`
	// ProcessTime is the user-mode time of one process, in 100 ns
	// units (0: no limit).
	ProcessTime int64 `json:"process_time,omitempty"`
}

// Job object limit flags.
const (
	jobLimitProcessTime    = 0x2
	jobLimitProcessMemory  = 0x100
	jobLimitDieOnException = 0x400
	jobLimitKillOnJobClose = 0x2000
)

// WorkspaceSID is the SID that stands for ws in the tokens and ACEs of
// the restricted-token backend: S-1-5-21- and four numbers from a hash of
// the path, the same for the same workspace on every run, so that the
// ACEs added once keep working. It is no secret: a token can only be
// given restricting SIDs that narrow what its parent could do, so knowing
// it lets a sandboxed program write nothing more.
func WorkspaceSID(ws string) string {
	key := strings.ToLower(filepath.Clean(ws))
	if ws == "" {
		key = "(no workspace)"
	}
	sum := sha256.Sum256([]byte("cordon workspace SID\x00" + key))
	var parts [4]string
	for i := range parts {
		parts[i] = fmt.Sprint(binary.BigEndian.Uint32(sum[4*i:]))
	}
	return "S-1-5-21-" + strings.Join(parts[:], "-")
}

// PlanWindows returns how the restricted-token backend confines a
// program by p. It reads whether each path is a directory (a file's ACE
// cannot be inherited) and leaves out paths that do not exist.
func PlanWindows(p *Policy) *WindowsPlan {
	sid := WorkspaceSID(p.Workspace)
	w := &WindowsPlan{
		Flags:       tokenDisableMaxPrivilege | tokenLUAToken | tokenWriteRestricted,
		FlagNames:   []string{"DISABLE_MAX_PRIVILEGE", "LUA_TOKEN", "WRITE_RESTRICTED"},
		SID:         sid,
		Restricting: []string{sid, sidLogon, sidEveryone},
	}
	grant := func(paths []string, why string) {
		for _, path := range paths {
			if inherit, ok := aceInherit(path); ok {
				w.ACEs = append(w.ACEs, WindowsACE{path, fmt.Sprintf("(A;%s;0x%x;;;%s)", inherit, aceModify, sid), why})
			}
		}
	}
	scratch := p.Scratch
	if lad := Getenv(p.Env, "LOCALAPPDATA"); filepath.IsAbs(lad) {
		w.Temp = filepath.Join(lad, "cordon", "tmp", strings.ReplaceAll(strings.TrimPrefix(sid, "S-1-5-21-"), "-", ""))
		w.ACEs = append(w.ACEs, WindowsACE{w.Temp, fmt.Sprintf("(A;OICI;0x%x;;;%s)", aceModify, sid), "temporary"})
		var own []string
		for _, k := range []string{"TEMP", "TMP"} {
			if v := Getenv(p.Env, k); v != "" {
				own = append(own, v)
			}
		}
		scratch = slices.DeleteFunc(slices.Clone(scratch), func(d string) bool {
			return slices.ContainsFunc(own, func(t string) bool { return strings.EqualFold(filepath.Clean(t), filepath.Clean(d)) })
		})
	}
	grant(scratch, "scratch")
	grant(p.Writable, "writable")
	grant(p.Caches, "cache") // the host's own: no private layer here (docs/windows.md)
	roots := p.WritableRoots()
	for _, path := range p.ReadOnly {
		inherit, ok := aceInherit(path)
		if !ok {
			continue
		}
		w.ACEs = append(w.ACEs, WindowsACE{path, fmt.Sprintf("(D;%s;0x%x;;;%s)", inherit, aceNoWrite, sid), "read-only"})
		// Its directories up to the writable root cannot be renamed
		// away and replaced (.git with a .git\config of one's own).
		for d := filepath.Dir(path); within(d, roots) && !slices.Contains(roots, d) && filepath.Dir(d) != d; d = filepath.Dir(d) {
			w.ACEs = append(w.ACEs, WindowsACE{d, fmt.Sprintf("(D;;0x%x;;;%s)", aceNoDelete, sid), "holds a read-only path"})
		}
	}
	// git's configuration files: on Linux and macOS a guard undoes a
	// command's changes to them; Windows has none, so they are read-only.
	for _, pattern := range p.GitConfig {
		files, _ := filepath.Glob(pattern)
		for _, f := range files {
			if inherit, ok := aceInherit(f); ok && within(f, roots) {
				w.ACEs = append(w.ACEs, WindowsACE{f, fmt.Sprintf("(D;%s;0x%x;;;%s)", inherit, aceNoWrite, sid), "git configuration, read-only"})
			}
		}
	}
	w.ACEs = dedupeACEs(w.ACEs)

	w.Job.LimitFlags = jobLimitKillOnJobClose | jobLimitDieOnException
	w.Job.FlagNames = []string{"KILL_ON_JOB_CLOSE", "DIE_ON_UNHANDLED_EXCEPTION"}
	if m := p.Limits.Memory; m > 0 {
		w.Job.LimitFlags |= jobLimitProcessMemory
		w.Job.FlagNames = append(w.Job.FlagNames, "PROCESS_MEMORY")
		w.Job.ProcessMemory = m
	}
	if c := p.Limits.CPU; c > 0 {
		w.Job.LimitFlags |= jobLimitProcessTime
		w.Job.FlagNames = append(w.Job.FlagNames, "PROCESS_TIME")
		w.Job.ProcessTime = int64(c) * 10_000_000
	}

	if len(p.Hidden) > 0 {
		w.NotEnforced = append(w.NotEnforced, fmt.Sprintf("reading the %d hidden paths (credentials): a write-restricted token checks writes only, and a fully restricted one would make every folder the Users group can write writable too; commands that name them are judged", len(p.Hidden)))
	}
	if len(p.Missing) > 0 {
		w.NotEnforced = append(w.NotEnforced, fmt.Sprintf("%d protected paths that do not exist yet: an ACE needs a file to hang on, so they can be created where their folder is writable", len(p.Missing)))
	}
	if p.Limits.FileSize > 0 || p.Limits.Files > 0 {
		w.NotEnforced = append(w.NotEnforced, "the file size and open files limits: a job object has neither")
	}
	if p.PrivateTmp && w.Temp == "" {
		w.NotEnforced = append(w.NotEnforced, "a private temporary folder: %TEMP% is shared")
	}
	w.NotEnforced = append(w.NotEnforced,
		"writes to what grants Everyone write (devices such as NUL, pipes, and folders made so): Everyone is a restricting SID, for the console and NUL to work",
		"the network: commands reach it as the user does; without elevation Windows has no per-process switch (a firewall rule needs a dedicated account and an administrator), so with network: off cordon runs nothing",
		"the ACEs stay on the folders after the command: they grant only this workspace's SID, which only cordon's tokens carry",
		"the user's secrets in Credential Manager and DPAPI (CredRead, CryptUnprotectData: Git Credential Manager's tokens, browsers' cookie keys): the token is the user's own, so what the user can read there, a command can")
	return w
}

// aceInherit is the SDDL inheritance flags for an ACE on path: OICI on
// a directory, none on a file; false when path does not exist.
func aceInherit(path string) (string, bool) {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return "", false
	case fi.IsDir():
		return "OICI", true
	}
	return "", true
}

func dedupeACEs(aces []WindowsACE) []WindowsACE {
	seen := map[WindowsACE]bool{}
	out := aces[:0]
	for _, a := range aces {
		k := WindowsACE{Path: a.Path, ACE: a.ACE}
		if !seen[k] {
			seen[k] = true
			out = append(out, a)
		}
	}
	return out
}

// SDDL returns the ACEs for path as one SDDL DACL fragment, in order.
func (w *WindowsPlan) SDDL(path string) string {
	var b strings.Builder
	for _, a := range w.ACEs {
		if a.Path == path {
			b.WriteString(a.ACE)
		}
	}
	return b.String()
}

// Env returns env with TEMP and TMP naming the plan's temporary folder,
// when it has one.
func (w *WindowsPlan) Env(env []string) []string {
	if w.Temp == "" {
		return env
	}
	out := slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return strings.EqualFold(name, "TEMP") || strings.EqualFold(name, "TMP")
	})
	return append(out, "TEMP="+w.Temp, "TMP="+w.Temp)
}

// Apply adds the plan's ACEs to the paths' DACLs with add (path, its
// ACEs as SDDL, the SID), each path once: add leaves a path that already
// has an explicit ACE for the SID alone, so a large workspace is walked
// once, not on every command. A scratch folder whose DACL cordon may not
// change (C:\tmp made by an elevated installer, owned by Administrators)
// is left out, not writable in the sandbox, and said in skipped: it must
// not fail every command. Any other failure is an error, since a
// read-only path left writable would be a hole.
func (w *WindowsPlan) Apply(add func(path, aces, sid string) error) (skipped []string, err error) {
	done := map[string]bool{}
	for _, a := range w.ACEs {
		if done[a.Path] {
			continue
		}
		done[a.Path] = true
		err := add(a.Path, w.SDDL(a.Path), w.SID)
		if err == nil {
			continue
		}
		if errors.Is(err, fs.ErrPermission) && w.onlyScratch(a.Path) {
			skipped = append(skipped, fmt.Sprintf("cannot let the sandbox write the scratch folder %s (%v: its owner, another account, did not allow you to change its permissions); commands cannot write there. To use it, take ownership (takeown /f %s) or remove it", a.Path, err, a.Path))
			continue
		}
		return skipped, fmt.Errorf("cannot set the sandbox's ACEs on %s: %w", a.Path, err)
	}
	return skipped, nil
}

// onlyScratch reports whether every ACE of the plan on path grants a
// scratch folder.
func (w *WindowsPlan) onlyScratch(path string) bool {
	return !slices.ContainsFunc(w.ACEs, func(a WindowsACE) bool { return a.Path == path && a.Why != "scratch" })
}

// mergeDACL returns the security descriptor sd (SDDL, with a D: part)
// as a DACL with aces (SDDL entries) added in Windows' order: explicit
// denies, explicit allows, then the inherited entries. It returns ""
// when the DACL already has an explicit entry for sid: cordon added its
// entries before, and a large tree is not walked again.
func mergeDACL(sd, aces, sid string) (string, error) {
	i := strings.Index(sd, "D:")
	if i < 0 {
		return "", fmt.Errorf("no DACL in %q", sd)
	}
	dacl := sd[i+2:]
	if j := strings.Index(dacl, "S:"); j >= 0 {
		dacl = dacl[:j] // a SACL after it is not ours to copy
	}
	flags := dacl[:strings.IndexByte(dacl+"(", '(')]
	if strings.Trim(strings.NewReplacer("AI", "", "AR", "").Replace(flags), "P") != "" {
		// NO_ACCESS_CONTROL (a null DACL, open to all) among them:
		// adding entries would change who else can write.
		return "", fmt.Errorf("DACL flags %q: cordon adds entries only to an ordinary DACL", flags)
	}
	old, err := splitACEs(dacl[len(flags):])
	if err != nil {
		return "", err
	}
	add, err := splitACEs(aces)
	if err != nil {
		return "", err
	}
	var deny, allow, inherited []string
	for _, a := range old {
		f := strings.Split(strings.Trim(a, "()"), ";")
		explicit := len(f) < 2 || !strings.Contains(f[1], "ID")
		if explicit && len(f) >= 6 && f[5] == sid {
			return "", nil
		}
		switch {
		case !explicit:
			inherited = append(inherited, a)
		case strings.HasPrefix(a, "(D;"), strings.HasPrefix(a, "(OD;"), strings.HasPrefix(a, "(XD;"):
			deny = append(deny, a)
		default:
			allow = append(allow, a)
		}
	}
	var newDeny, newAllow []string
	for _, a := range add {
		if strings.HasPrefix(a, "(D;") {
			newDeny = append(newDeny, a)
		} else {
			newAllow = append(newAllow, a)
		}
	}
	return "D:" + flags + strings.Join(slices.Concat(newDeny, deny, newAllow, allow, inherited), ""), nil
}

// splitACEs splits SDDL entries "(...)(...)", parentheses nested in a
// conditional entry included.
func splitACEs(s string) ([]string, error) {
	var out []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '(':
			if depth == 0 {
				start = i
			}
			depth++
		case ')':
			depth--
			if depth == 0 {
				out = append(out, s[start:i+1])
			}
		default:
			if depth == 0 && c != ' ' {
				return nil, fmt.Errorf("not an SDDL entry list: %q", s)
			}
		}
		if depth < 0 {
			return nil, fmt.Errorf("unbalanced SDDL: %q", s)
		}
	}
	if depth != 0 {
		return nil, fmt.Errorf("unbalanced SDDL: %q", s)
	}
	return out, nil
}
