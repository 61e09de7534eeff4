package serve

import "time"

// A client that comes back. A UI reconnects by itself: after a seq gap, a
// dropped socket, a page reload, or when a gateway closed it. A real
// gateway never sends a reconnecting client the events it sent before; it
// sends what happens from then on, and the UI reloads the rest with
// chat.startup. So serve knows a client again by its connect params'
// client.instanceId (the Control UI's) or device.id (a paired client's,
// clawtap record's) and, unless FromStart:
//
//   - a client that left in the middle of its stream resumes it after the
//     last frame its earlier connection was sent, with its next recorded
//     gap, and its seq from 1 as on any new connection;
//   - a client that was sent its whole stream (or whose recorded
//     connection ended with no connection after it) gets the handshake and
//     answers, and no frames: the capture is over, as on an idle gateway.
//
// Before, every connection started the capture over, and a Control UI
// that reconnected after the end showed the recorded run again, once per
// reconnect.

// visit is where a client that left had got to.
type visit struct {
	sc    *Script
	pos   int   // capture index of the last item it was sent
	t     int64 // that item's recorded time
	ended bool  // it was sent the whole stream
}

// maxVisits bounds the clients remembered; a client forgotten starts over.
const maxVisits = 1024

// remember notes where a client that is leaving had got to; sv.mu is held.
func (sv *Server) remember(c *client) {
	if c.st == nil || c.handed.Load() || !c.known {
		return // with Reconnects, a client closed as recorded has its next connection parked
	}
	pos, _, _, _, _ := c.st.Position()
	v := visit{sc: c.sc, pos: int(pos), t: c.st.lastT.Load(), ended: c.ended.Load() || c.asRec.Load()}
	if pos < 0 && !v.ended {
		return // it was sent nothing: it starts afresh
	}
	if c.idle { // it came back after its end, and leaves again
		v = visit{sc: c.sc, pos: c.st.opts.After, t: c.st.opts.AfterT, ended: true}
	}
	if _, ok := sv.visits[c.key]; !ok && len(sv.visits) >= maxVisits {
		for k := range sv.visits {
			delete(sv.visits, k)
			break
		}
	}
	sv.visits[c.key] = v
}

// finishTimer closes Done after the grace period; a newer arming or a
// cancel makes an older timer's firing do nothing.
type finishTimer struct {
	gen   int
	timer Timer
	stop  chan struct{} // closed by cancel
}

// finishAfterGrace closes Done once Options.Grace has passed (at once when
// it is 0), unless cancel is called before: with Once, the first client's
// stream is over, or it left and may come back.
func (sv *Server) finishAfterGrace() {
	if sv.opts.Grace <= 0 {
		sv.finish()
		return
	}
	sv.mu.Lock()
	defer sv.mu.Unlock()
	sv.fin.cancel()
	gen, stop := sv.fin.gen, make(chan struct{})
	t := sv.opts.Clock.NewTimer(sv.opts.Grace)
	sv.fin.timer, sv.fin.stop = t, stop
	go func() {
		select {
		case <-t.C():
		case <-stop:
			return
		case <-sv.done:
			return
		}
		sv.mu.Lock()
		current := sv.fin.gen == gen
		sv.mu.Unlock()
		if current {
			sv.finish()
		}
	}()
}

// cancel stops a pending finish; sv.mu is held.
func (f *finishTimer) cancel() {
	f.gen++
	if f.timer != nil {
		f.timer.Stop()
		close(f.stop)
		f.timer, f.stop = nil, nil
	}
}

// GraceDefault is serve's default --grace: long enough for a Control UI's
// history reloads after a run's final (0.1 to 3 s after it) and for a
// reconnect after a close.
const GraceDefault = 5 * time.Second
