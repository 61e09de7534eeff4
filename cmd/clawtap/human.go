package main

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/clawtap/clawtap/pkg/bridge"
	"github.com/fatih/color"
)

// kindColor gives each kind a colour in human output.
func kindColor(k bridge.Kind) *color.Color {
	switch k {
	case bridge.RuntimeChat:
		return color.New(color.FgCyan)
	case bridge.RuntimeAgent:
		return color.New(color.FgBlue)
	case bridge.SummaryRefresh:
		return color.New(color.FgMagenta)
	case bridge.Approval:
		return color.New(color.FgYellow)
	case bridge.Invalid:
		return color.New(color.FgRed, color.Bold)
	case bridge.Marker:
		return color.New(color.Bold)
	case bridge.Request, bridge.Response:
		return color.New(color.FgGreen)
	}
	return color.New(color.Faint)
}

// offset renders a time as an offset from the capture's start.
func offset(t, start int64) string {
	if t == 0 || start == 0 {
		return "-"
	}
	d := t - start
	sign := "+"
	if d < 0 {
		sign, d = "-", -d
	}
	return fmt.Sprintf("%s%d.%03ds", sign, d/1000, d%1000)
}

// clip shortens s to at most n runes, marking the cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// pad pads s to n columns (runes), for aligned columns that stream.
func pad(s string, n int) string {
	if c := utf8.RuneCountInString(s); c < n {
		return s + strings.Repeat(" ", n-c)
	}
	return s
}

// oneLine turns any text into a single printable line.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' || r == '\t' {
			return ' '
		}
		if r < 0x20 || r == 0x7f {
			return '�'
		}
		return r
	}, s)
}

// detail summarises what distinguishes an event inside its kind.
func detail(ev *bridge.Event) string {
	var parts []string
	add := func(k, v string) {
		if v != "" {
			parts = append(parts, k+"="+v)
		}
	}
	add("state", ev.State)
	add("stream", ev.Stream)
	add("phase", ev.Phase)
	if ev.Kind == bridge.Request || ev.Kind == bridge.Response {
		add("method", ev.Method)
		add("id", ev.ID)
	}
	if ev.OK != nil && !*ev.OK {
		parts = append(parts, "ok=false")
	}
	add("code", ev.Code)
	add("mark", ev.Mark)
	add("reason", ev.Reason)
	return strings.Join(parts, " ")
}
