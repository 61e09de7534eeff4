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
// suite and is returned. A suite stopped (ctx, or emit's error) returns at
// once: captures under way stop at their next record, in the background.
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
	for {
		var r *Result
		select {
		case r = <-done:
		case <-ctx.Done():
			r = nil
		}
		if r == nil {
			// All done, or stopped (a signal). A stopped suite does not
			// wait for the captures under way: they end at their next
			// record, or, stuck in a read (a FIFO named as a capture),
			// are left to the process's end.
			if next < len(caps) {
				return ctx.Err()
			}
			return nil
		}
		pending[r.Index] = r
		for {
			r, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			<-window
			if err := emit(r); err != nil {
				return err // the deferred cancel stops the rest
			}
		}
	}
}
