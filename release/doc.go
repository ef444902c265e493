// Package release tests cordon's release artifacts and its one-line
// installer: what `goreleaser release --snapshot` leaves in a dist
// directory (archives, checksums.txt, the .deb and .rpm, the Homebrew cask
// and the Scoop manifest), and install.sh run as `curl URL | sh` against a
// local server holding that directory. The tests run only when
// CORDON_RELEASE_DIST names the directory; scripts/test.sh builds it
// (scripts/release-snapshot.sh) and sets it. See docs/release.md.
package release
