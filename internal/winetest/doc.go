// Package winetest runs cordon's Windows binary as a process under wine,
// with wine's own cmd.exe as the real shell: that the binary acts as
// cmd.exe and PowerShell at all, hands the real shell its command line
// unchanged, and passes output and exit statuses back. Wine's tokens,
// ACLs and job objects are emulations, so nothing here is evidence of
// confinement; see docs/windows.md.
//
// The tests need wine64 and mingw-w64 (scripts/test.sh installs and
// requires them in CI with CORDON_REQUIRE_WINE=1); elsewhere they skip.
package winetest
