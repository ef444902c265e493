package platform

import (
	"os"
	"sync"
)

// A Child is a program started by [Backend.Start]: cordon stays its
// parent, passes signals on and reports how it ended.
type Child struct {
	forward func(os.Signal) // nil: signals are not passed on
	pid     int             // the program's process id (0 where unknown)
	done    chan childEnd   // receives once, when the program has ended
	once    sync.Once
	end     childEnd
	// settled is closed once the program can no longer be started
	// again (see [Child.Settled]); nil: at once.
	settled chan struct{}
}

// childEnd is how a child ended: its exit status, shell style, or why it
// could not be waited for.
type childEnd struct {
	code int
	raw  uint32 // the wait status, where there is one
	err  error
}

// Forward passes a signal this process received on to the program, the
// way the program would have received it had it run in place of cordon
// (see each backend's Exec). A keyboard signal (SIGINT, SIGQUIT) that
// the program got from a terminal it shares with cordon is not sent
// twice. Signals to a program that has ended are dropped.
func (c *Child) Forward(sig os.Signal) {
	if c.forward != nil {
		c.forward(sig)
	}
}

// Wait waits for the program to end and returns its exit status as a
// shell reports it: the status it exited with, or 128+N when signal N
// killed it. The error says why the program could not be waited for;
// the status is then 126.
func (c *Child) Wait() (int, error) {
	c.once.Do(func() { c.end = <-c.done })
	return c.end.code, c.end.err
}

// Settled is closed once the program has started for good, or ended:
// bwrap, whose start failed because a file went meanwhile, is started
// again with the descriptors this process has then (its standard input
// and output, and every one inherited at its number), which must stay
// open until then.
func (c *Child) Settled() <-chan struct{} {
	if c.settled == nil {
		ch := make(chan struct{})
		close(ch)
		return ch
	}
	return c.settled
}

// Pid is the program's process id: bwrap's for the bwrap backend.
func (c *Child) Pid() int { return c.pid }

// WaitStatus waits like [Child.Wait] and returns the raw wait status
// (of the confined program: bwrap's 128+N is turned back into a death by
// signal N), for a caller that ends the same way ([ExitLike]).
func (c *Child) WaitStatus() uint32 {
	c.Wait()
	return c.end.raw
}
