package suite

import (
	"io"
	"strconv"
	"strings"

	"github.com/clawtap/clawtap/pkg/human"
)

// annotationLines bounds an annotation's message: GitHub shows the first
// lines inline; the log and the JUnit report have the rest.
const annotationLines = 40

// Annotate writes GitHub Actions workflow commands (::error …::…) for a
// result's failures: one for a golden that differs or is missing (on the
// golden file, at its first differing line), one for findings that differ
// (on the expectation file), one for a capture that could not be tested.
func Annotate(w io.Writer, r *Result) error {
	var b strings.Builder
	add := func(file string, line int, title, msg string) {
		b.WriteString("::error file=" + escapeProperty(file))
		if line > 0 {
			b.WriteString(",line=" + strconv.Itoa(line))
		}
		b.WriteString(",title=" + escapeProperty(title) + "::" + escapeData(clipLines(msg, annotationLines, "the log has the rest")) + "\n")
	}
	if r.Err != nil {
		add(r.Capture.Path, 0, "clawtap test: cannot test "+r.Capture.Path, r.Err.Error())
	}
	for k := range r.Runs {
		run := &r.Runs[k]
		where := r.Capture.Path + " [" + run.UI + "]"
		switch run.Golden.Status {
		case Fail:
			add(run.Golden.Path, run.Golden.Line, "clawtap test: replay differs from the golden: "+where, run.Golden.Diff)
		case Missing:
			add(r.Capture.Path, 0, "clawtap test: no golden: "+where, "golden "+run.Golden.Path+" does not exist: run clawtap test --update, review and commit it")
		}
		switch f := &run.Findings; f.Status {
		case Fail:
			add(f.Path, 0, "clawtap test: findings differ: "+where, findingLines(&f.Mismatch))
		case Missing:
			add(r.Capture.Path, 0, "clawtap test: no expectations: "+where, "no expectations for "+run.UI+" in "+f.Path+": run clawtap test --update, review and commit it")
		}
	}
	if b.Len() == 0 {
		return nil
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// escapeData escapes a workflow command's message, made safe first
// (human.Text): what it quotes of a capture or a golden file acts on
// nothing, and stays in the message.
func escapeData(s string) string {
	s = strings.TrimRight(human.Text(s), "\n")
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a workflow command's property value, made
// printable first.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(human.Printable(s))
}
