package platform

import "golang.org/x/sys/windows"

// systemDir is Windows' system directory (C:\Windows\System32), from
// Windows itself, not from the environment a caller sets.
func systemDir() string {
	dir, err := windows.GetSystemDirectory()
	if err != nil {
		return ""
	}
	return dir
}

// programFiles is the Program Files folder, from Windows itself.
func programFiles() string {
	dir, err := windows.KnownFolderPath(windows.FOLDERID_ProgramFiles, 0)
	if err != nil {
		return ""
	}
	return dir
}
