package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/clawtap/clawtap/pkg/models"
	"github.com/clawtap/clawtap/pkg/replay"
)

// Golden compares out, the output of what ("replay"), with the golden
// file at path: equal is fine, a difference is printed as a unified diff
// on stdout and is a finding. With update it rewrites the file instead.
// cmd is the command line, for hints.
func (e *Env) Golden(cmd, what, path string, out []byte, update bool) error {
	if update {
		if dir := filepath.Dir(path); dir != "." {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return &Error{Code: ExitTrouble, Err: fmt.Errorf("create %s: %w", dir, err)}
			}
		}
		// --update is the consent to replace the golden file.
		d, err := e.Create(Output{Path: path, Force: true, Cmd: cmd})
		if err != nil {
			return err
		}
		if _, err := d.Write(out); err != nil {
			d.Abort()
			return &Error{Code: ExitTrouble, Err: fmt.Errorf("write golden: %w", err)}
		}
		if err := d.Commit(); err != nil {
			return &Error{Code: ExitTrouble, Err: fmt.Errorf("write golden: %w", err)}
		}
		e.Infof("golden %s updated (%d bytes)", path, len(out))
		return nil
	}
	want, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Usage("create it with --update, review it, and commit it", "golden file %s does not exist", path)
		}
		return &Error{Code: ExitTrouble, Err: fmt.Errorf("read golden: %w", err)}
	}
	d := replay.UnifiedDiff(path, what, want, out)
	if d == "" {
		e.Infof("golden %s matches", path)
		return nil
	}
	bw, flush := e.Out()
	bw.WriteString(d)
	if err := flush(); err != nil {
		return err
	}
	e.Say("", "golden "+path+" differs from the "+what)
	e.Say("hint: ", "if the new behaviour is right, rerun with --update and commit the file")
	return ErrFinding
}

// goldenTail is how much of a golden file's end GoldenUI reads: its final
// state is its last block.
const goldenTail = 1 << 20

// GoldenUI is the UI version a golden file names (replay.UIOfOutput; a
// name without a version is that UI's first, as a golden made before
// clawtap modelled versions meant), or def when the file does not exist
// or names none.
func GoldenUI(path string, def replay.UI) (replay.UI, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return def, nil
		}
		return def, &Error{Code: ExitTrouble, Err: fmt.Errorf("read golden: %w", err)}
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return def, nil // the comparison says what is wrong with it
	}
	buf := make([]byte, min(fi.Size(), goldenTail))
	if _, err := f.ReadAt(buf, fi.Size()-int64(len(buf))); err != nil && !errors.Is(err, io.EOF) {
		return def, &Error{Code: ExitTrouble, Err: fmt.Errorf("read golden: %w", err)}
	}
	label, ok := replay.UIOfOutput(buf)
	if !ok {
		return def, nil
	}
	u, err := models.LookupPinned(label)
	if err != nil {
		return def, Usage("replay with --ui NAME[@VERSION] to choose one this clawtap models ('clawtap uis' lists them)", "golden %s was made with the %s UI: %v", path, label, err)
	}
	return u, nil
}
