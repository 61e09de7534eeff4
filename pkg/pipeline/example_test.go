package pipeline_test

import (
	"fmt"
	"log"

	"github.com/clawtap/clawtap/pkg/models"

	"github.com/clawtap/clawtap/pkg/capture"
	"github.com/clawtap/clawtap/pkg/outcome"
	"github.com/clawtap/clawtap/pkg/pipeline"
	"github.com/clawtap/clawtap/pkg/replay"
	"github.com/clawtap/clawtap/pkg/runs"
)

// lostReplies is an observer of the pass's run table: it asks for the
// runs' outcomes, and says of every run whether its reply reached the
// transcript.
type lostReplies struct{}

func (lostReplies) Needs() pipeline.Needs { return pipeline.Outcomes }

// RunDone sees every run as the table lets it go: while the capture is
// read, and at its end.
func (lostReplies) RunDone(_ *runs.Run, r *outcome.Run) {
	if r != nil {
		say(r)
	}
}

func say(r *outcome.Run) {
	if why := r.LostWhy(); why != "" {
		fmt.Printf("%s: run %s lost its reply: %s\n", r.UI, r.ID[:8], why)
		return
	}
	fmt.Printf("%s: run %s ended %s, reply committed: %v\n", r.UI, r.ID[:8], r.Terminal, r.Committed)
}

// A Go program runs a capture through the one pass with its own observer:
// here, what each run left the user with under both UI models. The real
// gateway's order (the lifecycle end, then the chat final) closes the run
// in clawboo before its final arrives.
func Example_runs() {
	for _, ui := range models.All() {
		r, err := capture.Open("../../fixtures/streamed-run.jsonl.zst", capture.Options{})
		if err != nil {
			log.Fatal(err)
		}
		p := pipeline.New(pipeline.Options{Replay: replay.Options{UI: ui}}, lostReplies{})
		if err := p.Run(pipeline.Records(r)); err != nil {
			log.Fatal(err)
		}
		r.Close()
	}
	// Output:
	// clawboo@1211c16: run 089c8afe lost its reply: its chat final (record 52) came after the run's own lifecycle end (record 50) had closed it, so the closed-run guard dropped the final's commitChat: the text never reached the transcript, the turn was never billed, and the streaming bubble stayed on screen
	// clawboo@59639f1: run 089c8afe ended final, reply committed: true
	// claw3d@eeb6f31: run 089c8afe ended final, reply committed: true
	// control-ui@2026.9.6: run 089c8afe ended final, reply committed: true
}
