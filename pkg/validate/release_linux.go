package validate

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// release asks the kernel to reclaim the pages of b, read-only data of the
// binary that was read once: they leave the process's resident memory
// (the schema's 3.5 MB), and come back unchanged should b be read again.
// MADV_PAGEOUT keeps the contents whatever backs the pages; a kernel
// older than 5.4 refuses it, and nothing changes.
func release(b []byte) {
	page := uintptr(os.Getpagesize())
	p := unsafe.Pointer(unsafe.SliceData(b))
	start := uintptr(p)
	skip := (start+page-1)&^(page-1) - start // to the first whole page
	end := (start + uintptr(len(b))) &^ (page - 1)
	if end <= start+skip {
		return
	}
	_ = unix.Madvise(unsafe.Slice((*byte)(unsafe.Add(p, skip)), end-start-skip), unix.MADV_PAGEOUT)
}
