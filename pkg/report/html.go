package report

import (
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/binary"
	"html"
	"io"
	"io/fs"
	"math/bits"
	"sort"
	"strings"
	"sync"
)

//go:embed assets/report.css
var assetCSS string

// The viewer is one script in a few files, each a part of its one
// function body (assets/viewer/README.md): joined in the order of their
// names, they are the script the page runs and its CSP hash covers.
//
//go:embed assets/viewer/*.js
var viewerFS embed.FS

// assetJS joins them once, when a page is first written, not as every
// command starts.
var assetJS = sync.OnceValue(func() string {
	parts, err := fs.Glob(viewerFS, "assets/viewer/*.js")
	if err != nil || len(parts) == 0 {
		panic("report: no viewer script embedded")
	}
	sort.Strings(parts)
	var js strings.Builder
	for _, name := range parts {
		b, err := viewerFS.ReadFile(name)
		if err != nil {
			panic("report: " + err.Error())
		}
		js.Write(b)
	}
	return js.String()
})

// Assets returns the report page's stylesheet and script (for tests that
// check them by hash, and for people who want to read them).
func Assets() (css, js string) { return assetCSS, assetJS() }

func cspHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(h[:]) + "'"
}

// EscapeData makes JSON safe inside a <script> element: <, > and & become
// \u003c, \u003e and \u0026, and U+2028/U+2029 become \u2028/\u2029. In
// valid JSON these characters can only occur inside strings, where the
// escapes mean the same thing, so the data parses unchanged — and no
// "</script>" or "<!--" can end or confuse the element.
func EscapeData(dst, data []byte) []byte {
	start := 0
	for i := nextSpecial(data, 0); i < len(data); i = nextSpecial(data, i+1) {
		var esc string
		switch data[i] {
		case '<':
			esc = `\u003c`
		case '>':
			esc = `\u003e`
		case '&':
			esc = `\u0026`
		default: // 0xE2, the first byte of U+2028 and U+2029 (and of others)
			if i+2 >= len(data) || data[i+1] != 0x80 || (data[i+2] != 0xA8 && data[i+2] != 0xA9) {
				continue
			}
			esc = `\u2028`
			if data[i+2] == 0xA9 {
				esc = `\u2029`
			}
			dst = append(dst, data[start:i]...)
			dst = append(dst, esc...)
			i += 2
			start = i + 1
			continue
		}
		dst = append(dst, data[start:i]...)
		dst = append(dst, esc...)
		start = i + 1
	}
	return append(dst, data[start:]...)
}

// nextSpecial returns the offset of the first <, >, & or 0xE2 byte at or
// after i, or len(data). It looks at eight bytes at a time: the page's
// data is megabytes of JSON in which these are rare.
func nextSpecial(data []byte, i int) int {
	for ; i+8 <= len(data); i += 8 {
		w := binary.LittleEndian.Uint64(data[i:])
		// A zero byte of w^x marks a byte equal to x's; the lowest mark
		// of each is exact, so the lowest of them all is the first match.
		// < and > differ in one bit only: one test finds both.
		m := zeroBytes((w|2*lsb)^('>'*lsb)) | zeroBytes(w^('&'*lsb)) | zeroBytes(w^(0xE2*lsb))
		if m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(data); i++ {
		switch data[i] {
		case '<', '>', '&', 0xE2:
			return i
		}
	}
	return i
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// zeroBytes marks the high bit of w's zero bytes (and, above the lowest,
// perhaps of others).
func zeroBytes(w uint64) uint64 { return (w - lsb) &^ w & msb }

// AppendHTML appends the whole report page: one self-contained file with
// its stylesheet, script and data inline. A Content-Security-Policy allows
// only this page's own style and script (by hash) and no network at all.
// Report.Err says whether its details could be read back.
func AppendHTML(dst []byte, r *Report) []byte {
	dst = appendHead(dst, r)
	dst = EscapeData(dst, AppendData(nil, r))
	return appendTail(dst)
}

// appendHead appends the page up to its data.
func appendHead(dst []byte, r *Report) []byte {
	title := "clawtap report"
	if r.Meta.Name != "" {
		title += " — " + r.Meta.Name
	}
	dst = append(dst, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"...)
	dst = append(dst, `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src `...)
	dst = append(dst, cspHash(assetCSS)...)
	dst = append(dst, `; script-src `...)
	dst = append(dst, cspHash(assetJS())...)
	dst = append(dst, `; img-src data:; base-uri 'none'; form-action 'none'">`+"\n"...)
	dst = append(dst, "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"...)
	dst = append(dst, "<meta name=\"generator\" content=\"clawtap report\">\n<title>"...)
	dst = append(dst, html.EscapeString(title)...)
	dst = append(dst, "</title>\n<style>"...)
	dst = append(dst, assetCSS...)
	dst = append(dst, "</style>\n</head>\n<body>\n<div id=\"app\"><noscript><p>This report needs JavaScript to draw its timeline. Its data is in the clawtap-data element of this file.</p></noscript></div>\n"...)
	return append(dst, "<script type=\"application/json\" id=\"clawtap-data\">\n"...)
}

// appendTail appends the page after its data.
func appendTail(dst []byte) []byte {
	dst = append(dst, "</script>\n<script>"...)
	dst = append(dst, assetJS()...)
	return append(dst, "</script>\n</body>\n</html>\n"...)
}

// WriteHTML writes the report page (AppendHTML) to w, a piece at a time:
// the page is never held whole in memory.
func WriteHTML(w io.Writer, r *Report) error {
	var err error
	write := func(p []byte) {
		if err == nil {
			_, err = w.Write(p)
		}
	}
	buf := appendHead(make([]byte, 0, flushAt+4096), r)
	write(buf)
	var esc []byte
	// A piece ends outside any string, so escaping it alone is escaping
	// it in the whole (EscapeData looks three bytes ahead only inside one).
	streamData(buf, r, func(p []byte) {
		// Most pieces have nothing to escape: they go as they are.
		i := nextSpecial(p, 0)
		if i == len(p) {
			write(p)
			return
		}
		esc = EscapeData(append(esc[:0], p[:i]...), p[i:])
		write(esc)
	})
	write(appendTail(esc[:0]))
	if err == nil {
		err = r.Err()
	}
	return err
}

// WriteData writes the embedded data JSON (unescaped) to w, a piece at a
// time.
func WriteData(w io.Writer, r *Report) error {
	var err error
	streamData(make([]byte, 0, flushAt+4096), r, func(p []byte) {
		if err == nil {
			_, err = w.Write(p)
		}
	})
	if err == nil {
		err = r.Err()
	}
	return err
}
