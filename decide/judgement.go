package decide

import (
	"errors"
	"fmt"

	"github.com/cordonsh/cordon/rules"
)

// safeJudgeWith runs judge, with a panic turned into an error.
func safeJudgeWith(judge func() *rules.Judgement) (j *rules.Judgement, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error (a cordon bug, please report it): %v", p)
		}
	}()
	j = judge()
	if j == nil {
		err = errors.New("internal error (a cordon bug, please report it): no judgement")
	}
	return j, err
}

// BlockingReasons are the reasons that did not allow: the ones that
// explain the refusal.
func BlockingReasons(j *rules.Judgement) []rules.Reason {
	var out []rules.Reason
	for _, rs := range j.Reasons {
		if rs.Verdict != rules.Allow {
			out = append(out, rs)
		}
	}
	return out
}
