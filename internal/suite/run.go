package suite

import (
	"context"
	"sync"
)

// Run tests the captures with cfg.Jobs workers and hands each result to
// emit in the captures' order, as soon as it and every capture before it
// are done, so a report streams and is the same bytes whatever the number
// of workers. At most 2×Jobs captures are started and not yet emitted: a
// slow capture holds the others back rather than letting finished results
// pile up. emit runs on the caller's goroutine; its first error stops the
// suite (captures under way finish their current record) and is returned.
func Run(ctx context.Context, caps []Capture, cfg Config, emit func(*Result) error) error {
	jobs := max(cfg.Jobs, 1)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	window := make(chan struct{}, 2*jobs) // a token per started, unemitted capture
	todo := make(chan int)
	done := make(chan *Result, jobs)

	go func() {
		defer close(todo)
		for i := range caps {
			select {
			case window <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case todo <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range todo {
				r := Test(ctx, caps[i], &cfg)
				r.Index = i
				select {
				case done <- r:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		wg.Wait()
		close(done)
	}()

	pending := make(map[int]*Result, 2*jobs) // the reorder buffer
	next := 0
	var err error
	for r := range done {
		if err == nil && ctx.Err() != nil {
			err = ctx.Err() // interrupted: results cut short are not reported
		}
		if err != nil {
			continue // draining after a stop
		}
		pending[r.Index] = r
		for err == nil {
			r, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			<-window
			if err = emit(r); err != nil {
				cancel()
			}
		}
	}
	if err == nil && next < len(caps) {
		err = ctx.Err()
	}
	return err
}
