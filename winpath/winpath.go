// Package winpath reads Windows paths on any operating system, for
// judging Windows commands: it resolves them as Windows would and maps
// them to a canonical form in which comparing paths is comparing
// strings.
//
// The canonical form of an absolute path is POSIX-like and lower case:
// C:\Users\Dev\src is /c:/users/dev/src, a drive root C:\ is /c:, a UNC
// path \\server\share\x is /unc/server/share/x, a device \\.\NUL (or a
// reserved name such as NUL or CON anywhere) is /dev/nul, and a registry
// key (HKLM:\SOFTWARE, HKEY_LOCAL_MACHINE\SOFTWARE, Registry::HKLM\...)
// is /hklm:/software. Other PowerShell drives (Env:, Variable:, Cert:,
// Function:, Alias:, WSMan:) keep their names (/env:/path). Windows
// compares names without regard to case, so the canonical form is in
// lower case; [Display] keeps a readable spelling.
package winpath

import (
	"strings"
)

// IsAbs reports whether p names a path without reference to a current
// directory or drive: C:\x, \\server\share, \\?\C:\x, HKLM:\x. A rooted
// path (\x) and a drive-relative one (C:x) are not absolute.
func IsAbs(p string) bool {
	p = slashes(p)
	switch {
	case strings.HasPrefix(p, "//"):
		return true
	case len(p) >= 3 && isLetter(p[0]) && p[1] == ':' && p[2] == '/':
		return true
	}
	_, _, ok := provider(p)
	return ok
}

// Abs resolves p against dir (an absolute Windows path) as Windows does,
// and returns it with backslashes:
// a drive-relative path (C:x) is resolved against dir when dir is on that
// drive and against the drive's root otherwise (cmd.exe's per-drive
// directories are not known); a rooted path (\x) is on dir's drive; "."
// and ".." are resolved lexically. It returns "" when p is relative and
// dir is "".
func Abs(p, dir string) string {
	return backslashes(abs(slashes(p), slashes(dir)))
}

func abs(p, dir string) string {
	if IsAbs(p) {
		return clean(p)
	}
	if d := reservedDevice(p); d != "" {
		return "//./" + d
	}
	if dir == "" || !IsAbs(dir) {
		return ""
	}
	switch {
	case len(p) >= 2 && isLetter(p[0]) && p[1] == ':':
		if strings.EqualFold(p[:2], dir[:min(2, len(dir))]) {
			return clean(dir + "/" + p[2:])
		}
		return clean(p[:2] + "/" + p[2:])
	case strings.HasPrefix(p, "/"):
		return clean(volume(dir) + p)
	}
	return clean(dir + "/" + p)
}

func backslashes(p string) string { return strings.ReplaceAll(p, "/", `\`) }

// Canon returns the canonical form of an absolute path (see the package
// documentation), or "" when p is not absolute.
func Canon(p string) string {
	p = slashes(p)
	if d := reservedDevice(p); d != "" {
		return "/dev/" + strings.ToLower(d)
	}
	if !IsAbs(p) {
		return ""
	}
	p = strings.ToLower(clean(p))
	switch {
	case strings.HasPrefix(p, "//./"), strings.HasPrefix(p, "//?/"):
		rest := p[4:]
		switch {
		case len(rest) >= 2 && isLetter(rest[0]) && rest[1] == ':':
			return driveCanon(rest)
		case strings.HasPrefix(rest, "unc/"):
			return trimSlash("/unc/" + rest[4:])
		case strings.HasPrefix(p, "//./"):
			return trimSlash("/dev/" + rest)
		}
		return trimSlash("/unc/" + rest)
	case strings.HasPrefix(p, "//"):
		return trimSlash("/unc/" + p[2:])
	case len(p) >= 2 && isLetter(p[0]) && p[1] == ':':
		return driveCanon(p)
	}
	if drive, rest, ok := provider(p); ok {
		return trimSlash("/" + drive + ":/" + strings.TrimPrefix(rest, "/"))
	}
	return ""
}

// Display returns a canonical path written the Windows way: /c:/users/dev
// is C:\users\dev, /unc/srv/share is \\srv\share, /hklm:/software is
// HKLM:\software.
func Display(canon string) string {
	switch {
	case strings.HasPrefix(canon, "/unc/"):
		return `\\` + strings.ReplaceAll(canon[5:], "/", `\`)
	case strings.HasPrefix(canon, "/dev/"):
		return `\\.\` + strings.ToUpper(canon[5:])
	}
	drive, rest, _ := strings.Cut(strings.TrimPrefix(canon, "/"), "/")
	if len(drive) == 2 {
		drive = strings.ToUpper(drive)
	} else if strings.HasPrefix(drive, "hk") {
		drive = strings.ToUpper(drive)
	}
	return drive + `\` + strings.ReplaceAll(rest, "/", `\`)
}

// FromMSYS maps a path as Git Bash (MSYS2, Cygwin) writes it to a Windows
// path: /c/Users/x and /cygdrive/c/Users/x are C:\Users\x, //srv/share is
// \\srv\share. Other paths are returned unchanged.
func FromMSYS(p string) string {
	rest, cyg := strings.CutPrefix(p, "/cygdrive/")
	if !cyg {
		rest, _ = strings.CutPrefix(p, "/")
		if strings.HasPrefix(p, "//") && len(p) > 2 && p[2] != '/' {
			return `\\` + strings.ReplaceAll(p[2:], "/", `\`)
		}
		if rest == p {
			return p
		}
	}
	if len(rest) >= 1 && isLetter(rest[0]) && (len(rest) == 1 || rest[1] == '/') {
		return strings.ToUpper(rest[:1]) + `:\` + strings.ReplaceAll(strings.TrimPrefix(rest[1:], "/"), "/", `\`)
	}
	return p
}

// slashes turns backslashes into forward slashes, the form used inside
// this package.
// slashes writes p with forward slashes, without the FileSystem
// provider's prefix (Microsoft.PowerShell.Core\FileSystem::C:\x is C:\x).
func slashes(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	low := strings.ToLower(p)
	for _, prefix := range []string{"microsoft.powershell.core/filesystem::", "filesystem::"} {
		if strings.HasPrefix(low, prefix) {
			return p[len(prefix):]
		}
	}
	return p
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// driveCanon is the canonical form of "c:..." (lower case, slashes).
func driveCanon(p string) string {
	rest := strings.TrimPrefix(p[2:], "/")
	if rest == "" {
		return "/" + p[:2]
	}
	return "/" + p[:2] + "/" + rest
}

func trimSlash(p string) string {
	if t := strings.TrimRight(p, "/"); t != "" {
		return t
	}
	return "/"
}

// volume returns the volume part of an absolute path in slash form: "C:"
// or "//server/share".
func volume(p string) string {
	if strings.HasPrefix(p, "//") {
		parts := strings.SplitN(p[2:], "/", 3)
		if len(parts) >= 2 {
			return "//" + parts[0] + "/" + parts[1]
		}
		return p
	}
	if d, _, ok := provider(p); ok {
		return d + ":"
	}
	return p[:min(2, len(p))]
}

// clean resolves "." and ".." and repeated separators lexically, keeping
// the volume; ".." never climbs above the root. Windows also drops
// trailing dots and spaces from a name ("src." is "src").
func clean(p string) string {
	if _, rest, ok := provider(p); ok {
		return strings.TrimSuffix(p[:len(p)-len(rest)], "/") + cleanParts(rest, "")
	}
	vol := volume(p)
	if strings.HasPrefix(vol, "//./") || strings.HasPrefix(vol, "//?/") {
		// \\?\C:\x: the volume is the drive after the prefix.
		inner := p[4:]
		if len(inner) >= 2 && isLetter(inner[0]) && inner[1] == ':' {
			return p[:4] + clean(inner)
		}
	}
	root := "/"
	if strings.HasPrefix(vol, "//") {
		root = ""
	}
	return vol + cleanParts(p[len(vol):], root)
}

// cleanParts cleans the part of a path after its volume: "/a/b", or
// root when nothing is left.
func cleanParts(rest, root string) string {
	var out []string
	for _, part := range strings.Split(rest, "/") {
		if part != "." && part != ".." {
			part = strings.TrimRight(part, " .")
		}
		switch part {
		case "", ".":
		case "..":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		default:
			out = append(out, part)
		}
	}
	if len(out) == 0 {
		return root
	}
	return "/" + strings.Join(out, "/")
}

// providers are PowerShell's drive names that are not file systems, with
// the registry hives' long names.
var providers = map[string]string{
	"hklm": "hklm", "hkcu": "hkcu", "hkcr": "hkcr", "hku": "hku", "hkcc": "hkcc",
	"hkey_local_machine": "hklm", "hkey_current_user": "hkcu", "hkey_classes_root": "hkcr",
	"hkey_users": "hku", "hkey_current_config": "hkcc",
	"env": "env", "variable": "variable", "function": "function", "alias": "alias",
	"cert": "cert", "wsman": "wsman",
}

// provider splits a PowerShell provider path (HKLM:\x, Registry::HKLM\x,
// HKEY_LOCAL_MACHINE\x as reg.exe writes it) into its drive and the rest.
func provider(p string) (drive, rest string, ok bool) {
	low := strings.ToLower(p)
	if r, found := strings.CutPrefix(low, "registry::"); found {
		low, p = r, p[len("registry::"):]
		name, tail, _ := strings.Cut(low, "/")
		if d, known := providers[name]; known && strings.HasPrefix(d, "hk") {
			return d, p[len(low)-len(tail):], true
		}
		return "", "", false
	}
	if r, found := strings.CutPrefix(low, "microsoft.powershell.core\\registry::"); found {
		return provider("registry::" + r)
	}
	name, tail, hasSlash := strings.Cut(low, "/")
	if n, item, colon := strings.Cut(name, ":"); colon && len(n) > 1 {
		// HKLM:\x, and Env:NAME (a drive-relative item of a provider).
		if d, known := providers[n]; known {
			if item != "" {
				return d, p[len(n)+1:], true
			}
			return d, p[len(low)-len(tail):], true
		}
		return "", "", false
	}
	// reg.exe's form: HKLM\SOFTWARE, HKEY_CURRENT_USER\x, or a bare hive.
	if d, known := providers[name]; known && strings.HasPrefix(d, "hk") && (hasSlash || name == low) {
		return d, p[len(low)-len(tail):], true
	}
	return "", "", false
}

// reservedDevice returns the device a reserved file name such as NUL,
// CON or COM1 (in any directory, with any extension, in any case) names,
// or "".
func reservedDevice(p string) string {
	p = strings.TrimSuffix(p, ":")
	name := p[strings.LastIndexAny(p, "/:")+1:]
	name = strings.TrimRight(name, " ")
	switch u := strings.ToUpper(name); u {
	case "NUL", "CON", "PRN", "AUX", "CONIN$", "CONOUT$":
		return u
	default:
		if len(u) == 4 && (strings.HasPrefix(u, "COM") || strings.HasPrefix(u, "LPT")) && u[3] >= '1' && u[3] <= '9' {
			return u
		}
	}
	return ""
}
