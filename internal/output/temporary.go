package output

import (
	"os"
	"path/filepath"
	"sync"
)

// temporaries are the temporary files of the Dests not yet committed,
// published or aborted, by Dest: what a process ending on a signal
// removes (RemoveTemporaries).
var temporaries struct {
	sync.Mutex
	m map[*Dest]string // the temporary file's path
}

// track notes d's temporary file.
func track(d *Dest) *Dest {
	path := d.tmp
	if d.root != nil {
		path = filepath.Join(d.root.Name(), d.tmp)
	}
	temporaries.Lock()
	defer temporaries.Unlock()
	if temporaries.m == nil {
		temporaries.m = make(map[*Dest]string)
	}
	temporaries.m[d] = path
	return d
}

// settled says d has no temporary file any more: it is in place or gone.
func (d *Dest) settled() {
	d.tmp = ""
	temporaries.Lock()
	defer temporaries.Unlock()
	delete(temporaries.m, d)
}

// RemoveTemporaries removes the temporary file of every output not yet
// committed or aborted, leaving their targets as they were: for a process
// about to end on a signal, so that it leaves no hidden file behind. An
// output written on meanwhile fails to commit.
func RemoveTemporaries() {
	temporaries.Lock()
	defer temporaries.Unlock()
	for d, path := range temporaries.m {
		os.Remove(path)
		delete(temporaries.m, d)
	}
}
