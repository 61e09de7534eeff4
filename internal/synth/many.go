package synth

import (
	"errors"
	"fmt"

	"github.com/clawtap/clawtap/pkg/capture"
)

// ManyRunsEach generates a capture of many short runs and hands each
// record to fn, as LargeEach does: one client connection, then runs
// one after another across a hundred sessions of three agents, each a
// chat.send, its start, two streamed tokens and the gateway's real ending
// (lifecycle end, then the chat final). Tests of memory use it: a million
// frames of Large hold about 11,000 runs, these 300,000 frames 30,000, so
// every table bounded by a count of runs fills early. The same seed gives
// the same records; memory stays bounded however many runs are asked for.
func ManyRunsEach(runs int, seed int64, fn func(*capture.Record) error) error {
	s := NewStream(seed, fn)
	c := s.Open(ConnOptions{Caps: []string{"tool-events"}})
	for k := 0; k < runs && s.Err() == nil; k++ {
		key := fmt.Sprintf("agent:%s:s%d", largeAgents[k%len(largeAgents)], k%100)
		r := c.ChatSend(key, "Say two words.")
		s.Advance(40)
		r.Start()
		s.Advance(60)
		r.Say("Two")
		s.Advance(70)
		r.Say(" words.")
		s.Advance(30)
		r.Finish()
		s.Advance(500)
	}
	if err := s.Err(); err != nil && !errors.Is(err, ErrStop) {
		return err
	}
	return nil
}
