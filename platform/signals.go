package platform

import (
	"os"
	"os/signal"
	"slices"
)

// NotifyCaught is [signal.Notify] for those of sigs this process does not
// ignore. A process started with SIGHUP or SIGINT ignored (under nohup,
// or as a script's background job) keeps them ignored until it catches
// them; catching one would also have every program it starts from then
// on (the real shell, the sandbox, a session's manager and so its
// shells) start with it caught, that is at its default, where the real
// shell run in cordon's place would have started with it ignored. With
// none of sigs left, nothing is caught (signal.Notify with no signal
// would catch them all).
func NotifyCaught(c chan<- os.Signal, sigs ...os.Signal) {
	if sigs = slices.DeleteFunc(slices.Clone(sigs), signal.Ignored); len(sigs) > 0 {
		signal.Notify(c, sigs...)
	}
}
