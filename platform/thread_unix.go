//go:build !windows

package platform

import "runtime"

// goLocked runs f on a new goroutine locked to an OS thread for good (f
// may confine the thread: when f returns, the runtime ends the thread
// with the goroutine), and never on the process's first thread. The
// system shows the first thread's state as the whole process's
// (/proc/PID/status, /proc/self/mountinfo): a process whose first
// thread took a command's Landlock domain, seccomp filter or mount
// namespace would pass for one inside the sandbox (a session's manager,
// which the shims in its sandbox then no longer trust for the bound it
// carries), and the runtime never ends that thread, so it would stay so.
func goLocked(f func()) {
	go func() {
		runtime.LockOSThread()
		if !onFirstThread() {
			f()
			return
		}
		// While this goroutine holds the first thread, no other one can
		// run on it: f's goroutine gets a thread of its own, and once it
		// has locked it, the first thread goes back to the runtime.
		locked := make(chan struct{})
		go func() {
			runtime.LockOSThread()
			close(locked)
			f()
		}()
		<-locked
		runtime.UnlockOSThread()
	}()
}
