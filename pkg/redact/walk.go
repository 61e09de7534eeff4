package redact

import (
	"bytes"
	"slices"

	"github.com/clawtap/clawtap/pkg/jsonx"
)

// leafMode is what a subtree does to every string inside it, unless a key
// within says otherwise. Higher values win.
type leafMode uint8

const (
	lmNone       leafMode = iota
	lmPeer                // Content: delivery addresses (deliveryContext, origin)
	lmMask                // Content: tool args and results, argv, log lines
	lmCap                 // capability URLs
	lmCredResult          // Marker, except a few descriptive keys
	lmMarker              // Marker
)

type scope uint8

const (
	scNone    scope = iota
	scConnect       // connect params
	scDevice        // connect params.device
	scUser          // a user object (presence, v4)
)

type ctx struct {
	leaf  leafMode
	scope scope
	talk  bool // inside a talk.config result: "key" is a credential
	// gen: inside the object or array value of a credential name (a
	// credential container): a string that looks generated is replaced.
	gen bool
}

// act is what happens to one string value.
type act uint8

const (
	aDefault    act = iota // text rules only
	aMarker                // credential (by place)
	aKey                   // the value of a credential name: replaced if credValue
	aCap                   // capability URL
	aMask                  // text
	aMaskBlob              // text, or a blob placeholder for base64
	aThinking              // chat.send thinking level, or thinking text
	aPseudo                // identifier
	aIP                    // IP address
	aHost                  // host name
	aPeer                  // delivery address
	aSessionKey            // session key
)

// rule is the verdict for one object member: what its string value (or
// the string elements of its array value) get, and the context for the
// objects below it.
type rule struct {
	str   act
	cls   keyClass // aKey: what the name promises
	gen   bool     // in a credential container
	chunk bool     // a streamed chunk (delta, deltaText): see tails
	child ctx
}

type edit struct{ start, end, off, n int }

// text is a string value of the frame that only the text rules applied
// to and that tails may need: one where they found a credential (found),
// or a streamed chunk (chunk). src[start:end] is its JSON, s its decoded
// value (valid while the frame is walked; nil until needed).
type text struct {
	start, end int
	s          []byte
	found      bool
	chunk      bool
}

// walker rewrites one frame. Its buffers are reused between frames.
type walker struct {
	r       *Redactor
	src     []byte
	edits   []edit
	repl    []byte
	kbuf    []byte
	sbuf    []byte
	spans   []span
	texts   []text
	found   bool // a text of this frame held a credential
	params  rule
	payload rule
	// A request whose params carry a credential key: its response hands
	// one out as well (a login's session, an exchange's new token).
	req     pendKey // the request being walked, when it could be one
	isReq   bool
	credKey bool // the member classify just saw has a credential key
	sentKey bool // the request sent a value under a credential key
}

const maxDepth = 10000 // as jsonx

// run redacts frame. ok is false when frame is not a JSON value.
func (w *walker) run(conn int, frame []byte) (out []byte, ok bool) {
	w.src = frame
	w.edits = w.edits[:0]
	w.repl = w.repl[:0]
	clear(w.texts)
	w.texts, w.found = w.texts[:0], false
	defer func() { w.src = nil }()
	if !w.prepare(conn, frame) {
		return nil, false
	}
	i := skipWS(frame, 0)
	if i >= len(frame) {
		return nil, false
	}
	end, ok := w.value(i, 0, rule{}, true)
	if !ok || skipWS(frame, end) != len(frame) {
		return nil, false
	}
	if w.found {
		w.tails()
	}
	if w.isReq && w.sentKey {
		w.r.pend.add(w.req, mkCredResult)
	}
	if len(w.edits) == 0 {
		return frame, true
	}
	size := len(frame)
	for _, e := range w.edits {
		size += e.n - (e.end - e.start)
	}
	out = make([]byte, 0, size)
	last := 0
	for _, e := range w.edits {
		out = append(out, frame[last:e.start]...)
		out = append(out, w.repl[e.off:e.off+e.n]...)
		last = e.end
	}
	out = append(out, frame[last:]...)
	if bytes.Equal(out, frame) {
		return frame, true
	}
	return out, true
}

// prepare reads the envelope (type, method, id) to set the contexts of
// params and payload, and remembers or looks up request ids.
func (w *walker) prepare(conn int, frame []byte) bool {
	w.params, w.payload = rule{}, rule{}
	w.isReq, w.sentKey = false, false
	t := jsonx.TrimSpace(frame)
	if jsonx.KindOf(t) != jsonx.Object {
		return jsonx.Valid(frame)
	}
	var typ, method string
	var id []byte
	_, err := jsonx.ObjectEachEnd(t, func(k, v []byte) bool {
		switch {
		case jsonx.KeyIs(k, "type"):
			typ, _ = jsonx.Str(v)
		case jsonx.KeyIs(k, "method"):
			method, _ = jsonx.Str(v)
		case jsonx.KeyIs(k, "id"):
			id = v
		}
		return true
	})
	if err != nil {
		return false
	}
	switch typ {
	case "req":
		if method == "connect" {
			w.params.child.scope = scConnect
		}
		kind := methodKind(method)
		switch kind {
		case mkConfigWrite:
			w.params = rule{str: aMarker, child: ctx{leaf: lmMarker}}
		case mkCredResult:
			// device.token.rotate and the like: what is sent is as
			// secret as what comes back.
			w.params = rule{str: aMarker, child: ctx{leaf: lmCredResult}}
		}
		if kind != mkNone && id != nil {
			w.r.pend.add(pendKey{conn, string(id)}, kind)
		}
		// connect has its own rules for what hello-ok hands out.
		if kind == mkNone && id != nil && method != "connect" {
			w.req, w.isReq = pendKey{conn, string(id)}, true
		}
	case "res":
		if id == nil || w.r.pend.empty() {
			break
		}
		k := pendKey{conn, string(id)}
		switch w.r.pend.get(k) {
		case mkSecrets:
			w.payload = rule{str: aMarker, child: ctx{leaf: lmMarker}}
		case mkCredResult, mkConfigWrite:
			w.payload = rule{str: aMarker, child: ctx{leaf: lmCredResult}}
		case mkTalkConfig:
			w.payload.child.talk = true
		}
		// The id stays remembered (until 1024 newer ones push it out): a
		// method may answer twice, and Frame callers that mix connections
		// may see another response with the same id first.
	}
	return true
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// value walks the JSON value at src[i] (no leading space) and returns the
// offset just past it.
func (w *walker) value(i, depth int, ru rule, top bool) (int, bool) {
	src := w.src
	switch src[i] {
	case '"':
		_, n, err := jsonx.Value(src[i:])
		if err != nil {
			return 0, false
		}
		w.str(i, i+n, ru)
		return i + n, true
	case '{':
		if depth >= maxDepth {
			return 0, false
		}
		return w.object(i, depth, ru.child, top)
	case '[':
		if depth >= maxDepth {
			return 0, false
		}
		i = skipWS(src, i+1)
		if i < len(src) && src[i] == ']' {
			return i + 1, true
		}
		for {
			if i >= len(src) {
				return 0, false
			}
			var ok bool
			if i, ok = w.value(i, depth+1, ru, false); !ok {
				return 0, false
			}
			i = skipWS(src, i)
			if i >= len(src) {
				return 0, false
			}
			if src[i] == ']' {
				return i + 1, true
			}
			if src[i] != ',' {
				return 0, false
			}
			i = skipWS(src, i+1)
		}
	default:
		_, n, err := jsonx.Value(src[i:])
		if err != nil {
			return 0, false
		}
		return i + n, true
	}
}

func (w *walker) object(i, depth int, c ctx, top bool) (int, bool) {
	src := w.src
	i = skipWS(src, i+1)
	if i < len(src) && src[i] == '}' {
		return i + 1, true
	}
	for {
		if i >= len(src) || src[i] != '"' {
			return 0, false
		}
		_, n, err := jsonx.Value(src[i:])
		if err != nil {
			return 0, false
		}
		key := src[i+1 : i+n-1]
		i = skipWS(src, i+n)
		if i >= len(src) || src[i] != ':' {
			return 0, false
		}
		i = skipWS(src, i+1)
		if i >= len(src) {
			return 0, false
		}
		var ru rule
		switch {
		case top && jsonx.KeyIs(key, "params"):
			ru = w.params
		case top && jsonx.KeyIs(key, "payload"):
			ru = w.payload
		default:
			ru = w.classify(key, c)
			if w.credKey && w.isReq && (src[i] == '"' || src[i] == '{' || src[i] == '[') {
				w.sentKey = true
			}
		}
		var ok bool
		if i, ok = w.value(i, depth+1, ru, false); !ok {
			return 0, false
		}
		i = skipWS(src, i)
		if i >= len(src) {
			return 0, false
		}
		if src[i] == '}' {
			return i + 1, true
		}
		if src[i] != ',' {
			return 0, false
		}
		i = skipWS(src, i+1)
	}
}

// classify decides the rule for the member key of an object in context c.
func (w *walker) classify(rawKey []byte, c ctx) rule {
	w.kbuf = normKey(rawKey, w.kbuf[:0])
	n := w.kbuf
	child := ctx{leaf: c.leaf, talk: c.talk, gen: c.gen}

	// Credentials, in every mode. By place first: what connect's auth,
	// a talk.config result's key and the credential results hold goes
	// whatever it looks like.
	cls := credClass(n)
	w.credKey = cls != kcNone && cls != kcWeak
	if (c.scope == scConnect && string(n) == "auth") || (c.talk && string(n) == "key") {
		return rule{str: aMarker, child: ctx{leaf: lmMarker, talk: c.talk}}
	}
	if w.credKey {
		if c.leaf >= lmCredResult {
			return rule{str: aMarker, child: ctx{leaf: lmMarker, talk: c.talk}}
		}
		// By name: the value if it could be the credential, and in an
		// object or array value what looks generated.
		child.gen = true
		return rule{str: aKey, cls: cls, gen: c.gen, child: child}
	}
	if isCredListKey(n) {
		lc := kcToken
		if cls == kcWeak {
			lc = kcWeak
		}
		if c.leaf >= lmCredResult {
			return rule{str: aMarker, child: child}
		}
		return rule{str: aKey, cls: lc, gen: c.gen, child: child}
	}
	if isCapKey(n) {
		child.leaf = max(child.leaf, lmCap)
		return rule{str: aCap, child: child}
	}
	switch c.leaf {
	case lmMarker:
		return rule{str: aMarker, child: child}
	case lmCredResult:
		if !credResultKeep[string(n)] {
			return rule{str: aMarker, child: child}
		}
	case lmCap:
		return rule{str: aCap, child: child}
	}
	if c.scope == scConnect && string(n) == "device" {
		child.scope = scDevice
	}
	chunk := string(n) == "delta" || string(n) == "deltatext"
	if !w.r.content {
		return rule{str: aDefault, gen: c.gen, chunk: chunk, child: child}
	}

	// Content and identifiers.
	if maskLeafKeys[string(n)] {
		child.leaf = max(child.leaf, lmMask)
		return rule{str: aMask, gen: c.gen, child: child}
	}
	if maskKeys[string(n)] {
		switch {
		case string(n) == "thinking":
			return rule{str: aThinking, gen: c.gen, child: child}
		case blobKeys[string(n)]:
			return rule{str: aMaskBlob, gen: c.gen, child: child}
		}
		return rule{str: aMask, gen: c.gen, chunk: chunk, child: child}
	}
	if c.leaf == lmMask {
		return rule{str: aMask, gen: c.gen, child: child}
	}
	var a act
	switch {
	case (c.scope == scDevice || c.scope == scUser) && (string(n) == "id" || string(n) == "name"):
		a = aPseudo
	case string(n) == "user":
		child.scope = scUser
		a = aPseudo
	case pseudoKeys[string(n)]:
		a = aPseudo
	case ipKeys[string(n)]:
		a = aIP
	case hostKeys[string(n)]:
		a = aHost
	case peerKeys[string(n)]:
		a = aPeer
	case peerLeafKeys[string(n)]:
		child.leaf = max(child.leaf, lmPeer)
		a = aPeer
	case isSessionKeyKey(n):
		a = aSessionKey
	case c.leaf == lmPeer && !peerKeep[string(n)]:
		a = aPeer
	default:
		return rule{str: aDefault, gen: c.gen, chunk: chunk, child: child}
	}
	return rule{str: a, gen: c.gen, child: child}
}

// str applies ru to the JSON string src[start:end].
func (w *walker) str(start, end int, ru rule) {
	r := w.r
	a := ru.str
	raw := w.src[start+1 : end-1]
	escaped := bytes.IndexByte(raw, '\\') >= 0
	// Only the text rules (and a container's generated values) apply, and
	// the pre-scan of the raw string finds nothing for them: done, without
	// decoding it. The common case for every string of a frame that
	// reached the walk for another reason.
	textMay := r.content || mayHaveText(raw)
	if a == aDefault && !textMay && !ru.chunk && (!ru.gen || !escaped && !generatedLike(raw)) {
		return
	}
	s := raw
	if escaped {
		d, ok := jsonx.Str(w.src[start:end])
		if !ok {
			return
		}
		s = []byte(d)
	}
	if ru.gen && a != aMarker && a != aKey && string(s) != Marker && generatedLike(s) {
		r.stats.Credentials++
		w.replace(start, end, []byte(Marker))
		return
	}
	var out []byte // the new decoded value; nil while unchanged
	switch a {
	case aMarker:
		if string(s) != Marker {
			r.stats.Credentials++
			w.replace(start, end, []byte(Marker))
		}
		return
	case aKey:
		if credValue(ru.cls, s) {
			r.stats.Credentials++
			w.replace(start, end, []byte(Marker))
			return
		}
		// Not a credential (a description, a mode word, a placeholder):
		// only the text rules, as for any string.
		a = aDefault
	case aCap:
		if c := scanCap(s, w.spans[:0]); len(c) > 0 {
			out = applySpans(s, c, w.sbuf[:0])
			if out != nil {
				r.stats.Credentials++
			}
		} else if string(s) != Marker && (bytes.Contains(s, []byte("://")) || bytes.HasPrefix(s, []byte("/"))) {
			r.stats.Credentials++
			w.replace(start, end, []byte(Marker))
			return
		}
	case aThinking:
		if thinkingLevels[string(bytes.ToLower(s))] {
			break
		}
		w.masked(start, end, s, false)
		return
	case aMask:
		w.masked(start, end, s, false)
		return
	case aMaskBlob:
		w.masked(start, end, s, true)
		return
	case aPseudo:
		out = w.pseudo(s, r.pseudo(string(s)))
	case aIP:
		out = w.pseudo(s, r.pseudoIP(string(s)))
	case aHost:
		out = w.pseudo(s, r.pseudoHost(string(s)))
	case aPeer:
		out = w.pseudo(s, r.pseudoPeer(string(s)))
	case aSessionKey:
		out = w.pseudo(s, r.pseudoSessionKey(string(s)))
	}

	// The text rules, on whatever the value is now.
	cur := s
	if out != nil {
		cur = out
	}
	var t []byte
	if out != nil || textMay {
		t = applySpans(cur, scanText(cur, w.spans[:0]), nil)
	}
	if t != nil {
		r.stats.Credentials++
		cur, out = t, t
		w.found = w.found || a == aDefault
	}
	found, afterText := out != nil, out
	if r.content {
		if comma, ok := isDataURL(cur); ok && !bytes.Contains(cur[comma:], []byte(blobPrefix)) {
			r.stats.Content++
			out = r.blob(cur[comma+1:], append([]byte(nil), cur[:comma+1]...))
			cur = out
		}
		if p := r.pseudoPaths(string(cur)); p != "" {
			r.stats.Pseudonyms++
			out = []byte(p)
		}
	}
	if out != nil && !bytes.Equal(out, s) {
		w.replace(start, end, out)
	}
	if a == aDefault && sameSlice(out, afterText) && (found || ru.chunk) { // changed by the text rules alone, or not at all
		w.texts = append(w.texts, text{start: start, end: end, s: s, found: found, chunk: ru.chunk})
	}
}

// pseudo returns p as bytes when it differs from s, counting it.
func (w *walker) pseudo(s []byte, p string) []byte {
	if p == string(s) {
		return nil
	}
	w.r.stats.Pseudonyms++
	return []byte(p)
}

// masked masks the string value src[start:end] (decoded s), or replaces
// it with a blob placeholder when blob is set and it is base64.
func (w *walker) masked(start, end int, s []byte, blob bool) {
	r := w.r
	if bytes.HasPrefix(s, []byte(blobPrefix)) {
		return
	}
	if blob {
		if comma, ok := isDataURL(s); ok {
			r.stats.Content++
			w.replace(start, end, r.blob(s[comma+1:], append(w.sbuf[:0], s[:comma+1]...)))
			return
		}
		if isBase64ish(s) {
			r.stats.Content++
			w.replace(start, end, r.blob(s, w.sbuf[:0]))
			return
		}
	}
	if !needsMask(s) {
		return
	}
	r.stats.Content++
	w.replace(start, end, mask(s, w.sbuf[:0]))
}

// replace records that src[start:end] becomes the JSON string of v.
func (w *walker) replace(start, end int, v []byte) {
	off := len(w.repl)
	w.repl = jsonx.AppendStringMinimal(w.repl, v)
	w.edits = append(w.edits, edit{start, end, off, len(w.repl) - off})
}

// tails finishes the text rules across the strings of a frame. A streamed
// frame holds the reply so far and the chunk just added (chat deltaText
// beside message text, agent data.delta beside data.text): a credential
// that straddles two chunks is found in the whole text, but its tail alone,
// in the later chunk, matches no rule. So where a chunk (a delta or
// deltaText string) is the end of a longer text that held a credential,
// the credential's part is masked in it too. A frame has one chunk and a
// text or two; at most maxTailPairs pairs are looked at, so a frame of
// thousands of them costs no more than its length.
func (w *walker) tails() {
	const maxTailPairs = 64
	pairs := 0
	sorted := true
	for i := range w.texts {
		d := &w.texts[i]
		if !d.chunk || len(d.s) == 0 {
			continue
		}
		var mapped []span
		for j := range w.texts {
			c := &w.texts[j]
			if !c.found || len(c.s) <= len(d.s) {
				continue
			}
			if pairs++; pairs > maxTailPairs {
				break
			}
			if !bytes.HasSuffix(c.s, d.s) {
				continue
			}
			off := len(c.s) - len(d.s)
			for _, sp := range scanText(c.s, w.spans[:0]) {
				if sp.end > off {
					mapped = append(mapped, span{max(sp.start, off) - off, sp.end - off})
				}
			}
		}
		if len(mapped) == 0 {
			continue
		}
		all := append(scanText(d.s, nil), mapped...)
		t := applySpans(d.s, all, nil)
		if t == nil {
			continue
		}
		if !d.found {
			w.r.stats.Credentials++
		}
		// Drop the edit the text rules made alone; the new one covers it.
		for k := range w.edits {
			if w.edits[k].start == d.start {
				w.edits = append(w.edits[:k], w.edits[k+1:]...)
				break
			}
		}
		w.replace(d.start, d.end, t)
		sorted = false
	}
	if !sorted {
		slices.SortFunc(w.edits, func(a, b edit) int { return a.start - b.start })
	}
}
