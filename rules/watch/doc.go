// Package watch keeps a rule set current while rule files are edited: it
// watches rule directories with fsnotify, waits for a burst of changes to
// settle, calls the caller's loader, and swaps the set atomically. A load
// that fails keeps the last good set.
//
// It watches directories, never files: editors save by writing a
// temporary file and renaming it over the old one, which a watch on the
// old file would miss. A directory that does not exist yet is waited for
// from its nearest existing parent; a directory that goes away is
// dropped, and waited for again the same way.
//
//	w, err := watch.New(dirs, load, func(e watch.Event) { fmt.Fprintln(os.Stderr, e) })
//	if err != nil {
//		return err // the first load failed: no rules, nothing runs
//	}
//	defer w.Close()
//	set := w.Current() // the rules of this moment
package watch
