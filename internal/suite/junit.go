package suite

import (
	"encoding/xml"
	"io"
	"strconv"
	"strings"
)

// JUnit XML as GitLab, Jenkins and GitHub's test reporters read it: one
// <testsuite> named "clawtap test", one <testcase> per capture and UI
// (classname clawtap.<ui>, name the capture's path), a <failure> holding
// the golden diff and the findings that differ, an <error> for a capture
// that could not be tested.

type junitCase struct {
	XMLName   xml.Name      `xml:"testcase"`
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	File      string        `xml:"file,attr"`
	Time      string        `xml:"time,attr,omitempty"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	Out       string        `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",cdata"`
}

// xmlText replaces what XML 1.0 cannot hold, even escaped (most control
// characters), so a hostile capture's text never breaks the report.
func xmlText(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			return r
		case r < 0x20, r == 0xFFFE, r == 0xFFFF, r >= 0xD800 && r <= 0xDFFF:
			return '\uFFFD'
		}
		return r
	}, s)
}

type junitSuite struct {
	XMLName  xml.Name    `xml:"testsuite"`
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr,omitempty"`
	Cases    []junitCase `xml:"testcase"`
}

type junitRoot struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr,omitempty"`
	Suites   []junitSuite `xml:"testsuite"`
}

// junitCases turns a result into its test cases.
func junitCases(r *Result, timed bool) []junitCase {
	var time string
	if timed {
		// A capture's time is shared by its UIs' cases.
		time = seconds(r.Elapsed.Milliseconds() / int64(max(len(r.Runs), 1)))
	}
	notes := strings.Join(r.Notes, "\n")
	if r.Err != nil {
		return []junitCase{{Name: r.Capture.Path, Classname: "clawtap", File: r.Capture.Path, Time: time, Out: notes,
			Error: &junitProblem{Message: r.Err.Error(), Type: "error", Body: xmlText(r.Err.Error())}}}
	}
	cases := make([]junitCase, 0, len(r.Runs))
	for k := range r.Runs {
		run := &r.Runs[k]
		c := junitCase{Name: r.Capture.Path, Classname: "clawtap." + run.UI, File: r.Capture.Path, Time: time, Out: notes}
		if run.Status().failed() {
			c.Failure = &junitProblem{Message: failureMessage(run), Type: failureType(run), Body: xmlText(runDetail(run))}
		}
		cases = append(cases, c)
	}
	return cases
}

// failureMessage sums a failed run up in one line.
func failureMessage(run *UIRun) string {
	var parts []string
	switch run.Golden.Status {
	case Fail:
		parts = append(parts, "golden "+run.Golden.Path+" differs from line "+strconv.Itoa(run.Golden.Line))
	case Missing:
		parts = append(parts, "golden "+run.Golden.Path+" does not exist")
	}
	f := &run.Findings
	switch f.Status {
	case Fail:
		var n []string
		for _, c := range []struct {
			k int
			w string
		}{{len(f.Unexpected), "unexpected"}, {len(f.Missing), "missing"}, {len(f.Changed), "with another severity"}} {
			if c.k > 0 {
				n = append(n, strconv.Itoa(c.k)+" "+c.w)
			}
		}
		parts = append(parts, "findings: "+strings.Join(n, ", "))
	case Missing:
		parts = append(parts, "no expectations for "+run.UI+" in "+f.Path)
	}
	return strings.Join(parts, "; ")
}

func failureType(run *UIRun) string {
	g, f := run.Golden.Status.failed(), run.Findings.Status.failed()
	switch {
	case g && f:
		return "golden,findings"
	case g:
		return "golden"
	}
	return "findings"
}

func seconds(ms int64) string {
	return strconv.FormatFloat(float64(ms)/1000, 'f', 3, 64)
}

func writeJUnit(w io.Writer, cases []junitCase, t *Totals, timed bool) error {
	s := junitSuite{Name: "clawtap test", Tests: len(cases), Cases: cases}
	for k := range cases {
		switch {
		case cases[k].Failure != nil:
			s.Failures++
		case cases[k].Error != nil:
			s.Errors++
		}
	}
	root := junitRoot{Name: "clawtap test", Tests: s.Tests, Failures: s.Failures, Errors: s.Errors, Suites: []junitSuite{s}}
	if timed {
		root.Time = seconds(t.Elapsed.Milliseconds())
		root.Suites[0].Time = root.Time
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(root); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
