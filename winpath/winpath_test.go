package winpath

import (
	"strings"
	"testing"
)

func TestAbsCanon(t *testing.T) {
	tests := []struct{ p, dir, abs, canon string }{
		{`src`, `C:\work\proj`, `C:\work\proj\src`, "/c:/work/proj/src"},
		{`..\..\Users\Dev`, `C:\work\proj`, `C:\Users\Dev`, "/c:/users/dev"},
		{`C:/Users/dev/.ssh`, ``, `C:\Users\dev\.ssh`, "/c:/users/dev/.ssh"},
		{`c:\USERS\DEV\`, ``, `c:\USERS\DEV`, "/c:/users/dev"},
		{`\Windows`, `D:\x`, `D:\Windows`, "/d:/windows"},
		{`C:`, `C:\work\proj`, `C:\work\proj`, "/c:/work/proj"},
		{`D:foo`, `C:\work`, `D:\foo`, "/d:/foo"},
		{`C:\`, ``, `C:\`, "/c:"},
		{`C:\..\..`, ``, `C:\`, "/c:"},
		{`\\server\share\dir\..\x`, ``, `\\server\share\x`, "/unc/server/share/x"},
		{`\\?\C:\Users\dev`, ``, `\\?\C:\Users\dev`, "/c:/users/dev"},
		{`\\?\UNC\srv\share`, ``, `\\?\UNC\srv\share`, "/unc/srv/share"},
		{`\\.\PhysicalDrive0`, ``, `\\.\PhysicalDrive0`, "/dev/physicaldrive0"},
		{`NUL`, `C:\x`, `\\.\NUL`, "/dev/nul"},
		{`nul:`, `C:\x`, `\\.\NUL`, "/dev/nul"},
		{`C:\x\con`, ``, `C:\x\con`, "/dev/con"},
		{`nul.txt`, `C:\x`, `C:\x\nul.txt`, "/c:/x/nul.txt"},
		{`src. `, `C:\x`, `C:\x\src`, "/c:/x/src"},
		{`HKLM:\SOFTWARE\Microsoft`, ``, `HKLM:\SOFTWARE\Microsoft`, "/hklm:/software/microsoft"},
		{`HKEY_CURRENT_USER\Software\Run`, ``, `HKEY_CURRENT_USER\Software\Run`, "/hkcu:/software/run"},
		{`Registry::HKEY_LOCAL_MACHINE\System`, ``, `Registry::HKEY_LOCAL_MACHINE\System`, "/hklm:/system"},
		{`Microsoft.PowerShell.Core\FileSystem::C:\Users\dev`, `D:\w`, `C:\Users\dev`, "/c:/users/dev"},
		{`FileSystem::\\srv\share\x`, `C:\w`, `\\srv\share\x`, "/unc/srv/share/x"},
		{`HKLM`, ``, `HKLM`, "/hklm:"},
		{`Env:\GITHUB_TOKEN`, ``, `Env:\GITHUB_TOKEN`, "/env:/github_token"},
		{`env:`, ``, `env:`, "/env:"},
		{`x`, ``, ``, ""},
	}
	for _, tt := range tests {
		abs := Abs(tt.p, tt.dir)
		if abs != tt.abs {
			t.Errorf("Abs(%q, %q) = %q, want %q", tt.p, tt.dir, abs, tt.abs)
		}
		if c := Canon(abs); c != tt.canon {
			t.Errorf("Canon(%q) = %q, want %q", abs, c, tt.canon)
		}
	}
}

func TestDisplay(t *testing.T) {
	for canon, want := range map[string]string{
		"/c:/users/dev": `C:\users\dev`, "/c:": `C:\`, "/unc/srv/share": `\\srv\share`,
		"/hklm:/software": `HKLM:\software`, "/dev/nul": `\\.\NUL`,
	} {
		if got := Display(canon); got != want {
			t.Errorf("Display(%q) = %q, want %q", canon, got, want)
		}
	}
}

func TestFromMSYS(t *testing.T) {
	for in, want := range map[string]string{
		"/c/Users/dev": `C:\Users\dev`, "/cygdrive/d/x": `D:\x`, "/c": `C:\`,
		"//srv/share": `\\srv\share`, "/tmp/x": "/tmp/x", "rel/x": "rel/x", "/usr/bin": "/usr/bin",
	} {
		if got := FromMSYS(in); got != want {
			t.Errorf("FromMSYS(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzCanon(f *testing.F) {
	for _, s := range []string{`C:\x\..\y`, `\\?\UNC\a\b`, `HKLM:\x`, `Registry::`, `\\.\`, `//`, `C:`, `nul`} {
		f.Add(s, `C:\work`)
	}
	f.Fuzz(func(t *testing.T, p, dir string) {
		a := Abs(p, dir)
		if c := Canon(a); c != "" && (c[0] != '/' || strings.Contains(c, `\`) || c != strings.ToLower(c)) {
			t.Errorf("Canon(Abs(%q, %q)) = %q: not a canonical path", p, dir, c)
		}
	})
}
