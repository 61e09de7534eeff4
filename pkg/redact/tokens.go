package redact

// Credentials recognised by their shape alone, wherever they appear in
// text: vendor tokens whose fixed prefix says what they are, and a few
// structured forms (JWTs, Discord and Telegram bot tokens). Each is
// replaced whole, prefix included, by Marker. docs/redaction.md has the
// table, and shapes_table_test.go a fixture for every row.
//
// The scanners do not look at every byte for every prefix: each shape has
// an anchor, the first '_', '-' or '.' of its prefix (else its first
// byte, an upper-case letter), and only those bytes stop a scan (scan.go).

// tokenShape is a token with a fixed, case-sensitive prefix followed by a
// body of bytes in one class.
type tokenShape struct {
	name   string // for the docs: what it is
	prefix string
	class  func(c byte) bool // the bytes of the body
	min    int               // shortest body
	exact  bool              // the body is exactly min bytes
	// ok, when set, also judges a body of the right length (sk-: random,
	// not a kebab-case word).
	ok func(body []byte) bool
	// cut: a body cut off by the end of the text counts however short (a
	// streamed chunk ends mid-token); set for prefixes no word starts with.
	cut bool
	// partialDigit: such a cut-off body must hold a digit to count (the
	// prefix alone is an ordinary word there).
	partialDigit bool
	// strictLeft: the byte before the prefix may not be '-' or '_' either
	// (task-…, disk-…, my-sk-… are words, not keys).
	strictLeft bool
	anchor     int // index in prefix of the anchor byte (set by init)
}

func isUpperOrDigit(c byte) bool { return c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' }

func isAlnumOrUnderscore(c byte) bool { return isAlnum(c) || c == '_' }

func isAlnumOrDash(c byte) bool { return isAlnum(c) || c == '-' }

func isKeyByte(c byte) bool { return isAlnum(c) || c == '-' || c == '_' }

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func isHexOrDash(c byte) bool { return isHex(c) || c == '-' }

func isBase64Byte(c byte) bool { return isAlnum(c) || c == '+' || c == '/' || c == '=' }

func isBase64URLOrPad(c byte) bool { return isKeyByte(c) || c == '=' || c == '.' }

// tokenShapes lists the shapes; docs/redaction.md has the same table.
var tokenShapes = []tokenShape{
	{name: "GitHub personal access token (classic)", prefix: "ghp_", cut: true, class: isAlnum, min: 20},
	{name: "GitHub OAuth token", prefix: "gho_", cut: true, class: isAlnum, min: 20},
	{name: "GitHub user-to-server token", prefix: "ghu_", cut: true, class: isAlnum, min: 20},
	{name: "GitHub server-to-server token", prefix: "ghs_", cut: true, class: isAlnum, min: 20},
	{name: "GitHub refresh token", prefix: "ghr_", cut: true, class: isAlnum, min: 20},
	{name: "GitHub fine-grained personal access token", prefix: "github_pat_", cut: true, class: isAlnumOrUnderscore, min: 20},

	{name: "GitLab personal access token", prefix: "glpat-", cut: true, class: isKeyByte, min: 20},
	{name: "GitLab pipeline trigger token", prefix: "glptt-", cut: true, class: isKeyByte, min: 20},
	{name: "GitLab deploy token", prefix: "gldt-", cut: true, class: isKeyByte, min: 20},
	{name: "GitLab runner token", prefix: "glrt-", cut: true, class: isKeyByte, min: 20},
	{name: "GitLab CI job token", prefix: "glcbt-", cut: true, class: isKeyByte, min: 20},
	{name: "GitLab incoming mail token", prefix: "glimt-", cut: true, class: isKeyByte, min: 20},
	{name: "GitLab feed token", prefix: "glft-", cut: true, class: isKeyByte, min: 20},
	{name: "GitLab SCIM token", prefix: "glsoat-", cut: true, class: isKeyByte, min: 20},
	{name: "GitLab agent token", prefix: "glagent-", cut: true, class: isKeyByte, min: 20},
	{name: "GitLab OAuth application secret", prefix: "gloas-", cut: true, class: isKeyByte, min: 20},
	{name: "GitLab feature flags client token", prefix: "glffct-", cut: true, class: isKeyByte, min: 20},

	{name: "AWS access key id", prefix: "AKIA", cut: true, class: isUpperOrDigit, min: 16, exact: true, partialDigit: true},
	{name: "AWS temporary access key id", prefix: "ASIA", cut: true, class: isUpperOrDigit, min: 16, exact: true, partialDigit: true},

	{name: "Slack bot token", prefix: "xoxb-", cut: true, class: isAlnumOrDash, min: 10},
	{name: "Slack user token", prefix: "xoxp-", cut: true, class: isAlnumOrDash, min: 10},
	{name: "Slack workspace token", prefix: "xoxa-", cut: true, class: isAlnumOrDash, min: 10},
	{name: "Slack refresh token", prefix: "xoxr-", cut: true, class: isAlnumOrDash, min: 10},
	{name: "Slack session token", prefix: "xoxs-", cut: true, class: isAlnumOrDash, min: 10},
	{name: "Slack configuration token", prefix: "xoxe-", cut: true, class: isAlnumOrDash, min: 10},
	{name: "Slack client token", prefix: "xoxc-", cut: true, class: isAlnumOrDash, min: 10},
	{name: "Slack cookie token", prefix: "xoxd-", cut: true, class: isAlnumOrDash, min: 10},
	{name: "Slack app-level token", prefix: "xapp-", cut: true, class: isAlnumOrDash, min: 10},

	{name: "OpenAI, Anthropic and other sk- keys (sk-proj-, sk-ant-api03-, sk-or-v1-, …)", prefix: "sk-", cut: true, class: isKeyByte, min: 20, ok: randomish, partialDigit: true, strictLeft: true},
	{name: "Stripe secret key (live)", prefix: "sk_live_", cut: true, class: isAlnum, min: 16},
	{name: "Stripe secret key (test)", prefix: "sk_test_", cut: true, class: isAlnum, min: 16},
	{name: "Stripe restricted key (live)", prefix: "rk_live_", cut: true, class: isAlnum, min: 16},
	{name: "Stripe restricted key (test)", prefix: "rk_test_", cut: true, class: isAlnum, min: 16},
	{name: "Stripe webhook signing secret", prefix: "whsec_", cut: true, class: isBase64Byte, min: 24},

	{name: "Google API key", prefix: "AIza", cut: true, class: isKeyByte, min: 35, exact: true},
	{name: "Google OAuth client secret", prefix: "GOCSPX-", cut: true, class: isKeyByte, min: 24},
	{name: "Google OAuth access token", prefix: "ya29.", class: isKeyByte, min: 20},

	{name: "npm access token", prefix: "npm_", class: isAlnum, min: 36},
	{name: "PyPI upload token", prefix: "pypi-AgEIcHlwaS5vcmc", cut: true, class: isKeyByte, min: 50},
	{name: "Hugging Face access token", prefix: "hf_", class: isAlnum, min: 30},
	{name: "Hugging Face organization token", prefix: "api_org_", class: isAlnum, min: 30},
	{name: "Groq API key", prefix: "gsk_", class: isAlnum, min: 40},
	{name: "Perplexity API key", prefix: "pplx-", class: isAlnum, min: 40},
	{name: "xAI API key", prefix: "xai-", class: isAlnum, min: 60},
	{name: "Replicate API token", prefix: "r8_", class: isAlnum, min: 30},

	{name: "SendGrid API key", prefix: "SG.", class: isBase64URLOrPad, min: 60},
	{name: "Twilio API key", prefix: "SK", class: isHex, min: 32, exact: true, partialDigit: true},
	{name: "Mailgun API key", prefix: "key-", class: isHex, min: 32, exact: true, partialDigit: true},
	{name: "DigitalOcean personal access token", prefix: "dop_v1_", cut: true, class: isHex, min: 64, exact: true},
	{name: "DigitalOcean OAuth token", prefix: "doo_v1_", cut: true, class: isHex, min: 64, exact: true},
	{name: "DigitalOcean refresh token", prefix: "dor_v1_", cut: true, class: isHex, min: 64, exact: true},
	{name: "Shopify access token", prefix: "shpat_", class: isHex, min: 32, exact: true},
	{name: "Shopify custom app token", prefix: "shpca_", class: isHex, min: 32, exact: true},
	{name: "Shopify private app token", prefix: "shppa_", class: isHex, min: 32, exact: true},
	{name: "Shopify shared secret", prefix: "shpss_", class: isHex, min: 32, exact: true},
	{name: "Linear API key", prefix: "lin_api_", class: isAlnum, min: 40},
	{name: "Notion integration token", prefix: "ntn_", class: isAlnum, min: 40},
	{name: "Grafana service account token", prefix: "glsa_", class: isAlnumOrUnderscore, min: 40},
	{name: "Grafana Cloud token", prefix: "glc_", class: isBase64Byte, min: 32},
	{name: "Sentry user token", prefix: "sntryu_", class: isHex, min: 64, exact: true},
	{name: "Sentry organization token", prefix: "sntrys_", class: isBase64URLOrPad, min: 60},
	{name: "Postman API key", prefix: "PMAK-", class: isHexOrDash, min: 50},
	{name: "Doppler token", prefix: "dp.pt.", class: isAlnum, min: 40},
	{name: "HashiCorp Vault service token", prefix: "hvs.", class: isKeyByte, min: 24},
	{name: "HashiCorp Vault batch token", prefix: "hvb.", class: isKeyByte, min: 24},
	{name: "Atlassian API token", prefix: "ATATT3", class: isBase64URLOrPad, min: 100},
	{name: "age secret key", prefix: "AGE-SECRET-KEY-1", class: isUpperOrDigit, min: 58},
}

// anchorShapes lists the shapes by their anchor byte; shapePrev has a bit
// for each byte that comes right before an anchor in some prefix, so that
// most anchors are turned down with one look.
var (
	anchorShapes [256][]*tokenShape       // by anchor byte (anchor 0: the first byte)
	shapesAfter  [256]*[256][]*tokenShape // by anchor byte, then the byte before it
	shapePrev    [256][4]uint64
)

func init() {
	for i := range tokenShapes {
		sh := &tokenShapes[i]
		sh.anchor = 0
		for k := 0; k < len(sh.prefix); k++ {
			if c := sh.prefix[k]; c == '_' || c == '-' || c == '.' {
				sh.anchor = k
				break
			}
		}
		a := sh.prefix[sh.anchor]
		if sh.anchor == 0 && !(a >= 'A' && a <= 'Z') {
			panic("redact: a token shape without a separator must start with an upper-case letter: " + sh.prefix)
		}
		if sh.anchor == 0 {
			anchorShapes[a] = append(anchorShapes[a], sh)
			continue
		}
		p := sh.prefix[sh.anchor-1]
		shapePrev[a][p>>6] |= 1 << (p & 63)
		if shapesAfter[a] == nil {
			shapesAfter[a] = new([256][]*tokenShape)
		}
		shapesAfter[a][p] = append(shapesAfter[a][p], sh)
	}
	initQuiet()
}

// randomish reports whether a body looks generated rather than written: it
// has a letter and a digit, and its '-' and '_' separate pieces that are 8
// bytes long on average or more (sk-proj-Ab3…, sk-live-4f9a…; not
// sk-this-is-a-slug-2).
func randomish(body []byte) bool {
	var letter, digit bool
	seps := 0
	for _, c := range body {
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c == '-' || c == '_':
			seps++
		default:
			letter = true
		}
	}
	return letter && digit && seps*8 <= len(body)
}

func hasPrefixAt(s []byte, i int, p string) bool {
	return i >= 0 && len(s)-i >= len(p) && string(s[i:i+len(p)]) == p
}

// wordStart reports whether a token may start at s[i]: the byte before is
// not a letter or digit. In raw JSON (raw) an escape right before counts
// as a boundary too: "\nghp_…" is a newline and a token once decoded.
func wordStart(s []byte, i int, raw bool) bool {
	if i == 0 || !isAlnum(s[i-1]) {
		return true
	}
	return raw && escapedBefore(s, i)
}

// escapedBefore reports whether s[i-1] ends a JSON escape (\n, \u0041).
func escapedBefore(s []byte, i int) bool {
	return i >= 2 && s[i-2] == '\\' || i >= 6 && s[i-6] == '\\' && s[i-5] == 'u'
}

// matchesShape judges a body; atEnd says the text ends right after it.
func matchesShape(sh *tokenShape, body []byte, atEnd bool) bool {
	n := len(body)
	full := n >= sh.min && (!sh.exact || n == sh.min) && (sh.ok == nil || sh.ok(body))
	if full {
		return true
	}
	if !sh.cut || !atEnd || n == 0 || n >= sh.min && (sh.exact || sh.ok == nil) {
		return false
	}
	if !sh.partialDigit {
		return true
	}
	digit, seps := false, 0
	for _, c := range body {
		digit = digit || c >= '0' && c <= '9'
		if c == '-' || c == '_' {
			seps++
		}
	}
	return digit && seps <= 2
}

// shapeAt looks for a shaped token whose anchor byte is s[i]. It returns
// the token's span. In raw JSON (raw) it is lenient where an escape could
// hide what the decoded text shows: a body that stops at a backslash
// counts, and a body cut short counts as if the text ended there.
func shapeAt(s []byte, i int, raw bool) (start, end int, ok bool) {
	c := s[i]
	if i > 0 {
		if p := s[i-1]; shapePrev[c][p>>6]&(1<<(p&63)) != 0 {
			for _, sh := range shapesAfter[c][p] {
				if start, end, ok = matchShape(s, i-sh.anchor, sh, raw); ok {
					return start, end, true
				}
			}
		}
	}
	for _, sh := range anchorShapes[c] {
		if start, end, ok = matchShape(s, i, sh, raw); ok {
			return start, end, true
		}
	}
	switch c {
	case '.':
		return dotTokenAt(s, i, raw)
	case '_':
		return genericGitHubAt(s, i, raw)
	case '-':
		if start, end, ok = genericGitLabAt(s, i, raw); ok {
			return start, end, ok
		}
		return mailchimpAt(s, i, raw)
	}
	return 0, 0, false
}

func matchShape(s []byte, start int, sh *tokenShape, raw bool) (int, int, bool) {
	if !hasPrefixAt(s, start, sh.prefix) || !wordStart(s, start, raw) {
		return 0, 0, false
	}
	if sh.strictLeft && start > 0 && (s[start-1] == '-' || s[start-1] == '_') && !(raw && escapedBefore(s, start)) {
		return 0, 0, false
	}
	b := start + len(sh.prefix)
	e := b
	for e < len(s) && e-b < maxValue && sh.class(s[e]) {
		e++
	}
	if e-b == maxValue && e < len(s) && sh.class(s[e]) {
		// A kilobyte of token bytes after the prefix: a token, however
		// long (read to its end once).
		return start, runFwd(s, e, sh.class), true
	}
	if raw && e < len(s) && s[e] == '\\' && e > b {
		return start, e, true
	}
	if e < len(s) && isAlnum(s[e]) { // a longer word
		return 0, 0, false
	}
	if matchesShape(sh, s[b:e], raw || e == len(s)) {
		return start, e, true
	}
	return 0, 0, false
}

// escStart returns where a token could start within the run s[st:i] in
// raw JSON: st, or just after a JSON escape inside the run, whose hex
// digits the run took for its own ("\u001aeyJ…" is a control character
// and a JWT). The last such place is taken (nearest the anchor).
func escStart(s []byte, st, i int, raw bool) int {
	if !raw {
		return st
	}
	for k := i - 1; k > st; k-- {
		if escapedBefore(s, k) {
			return k
		}
	}
	return st
}

// runBack returns the start of the run of bytes of class cl that ends at i.
func runBack(s []byte, i int, cl func(byte) bool) int {
	for i > 0 && cl(s[i-1]) {
		i--
	}
	return i
}

func runFwd(s []byte, i int, cl func(byte) bool) int {
	for i < len(s) && cl(s[i]) {
		i++
	}
	return i
}

// dotTokenAt finds the tokens made of pieces joined by dots, at the dot
// s[i]:
//
//   - a JWT, header.payload.signature, each piece base64url, the header
//     and the payload starting "ey" (a JSON object: `{"`), the signature
//     possibly empty;
//   - a Discord bot token, [MNO] and 23 to 25 more, a dot, 6, a dot, 27 or
//     more, all base64url.
func dotTokenAt(s []byte, i int, raw bool) (int, int, bool) {
	h0 := runBack(s, i, isKeyByte)
	if h := escStart(s, h0, i, raw); h != h0 {
		if st, e, ok := dotTokenFrom(s, h, i, raw); ok {
			return st, e, ok
		}
	}
	return dotTokenFrom(s, h0, i, raw)
}

func dotTokenFrom(s []byte, h, i int, raw bool) (int, int, bool) {
	if i-h < 12 || !wordStart(s, h, raw) {
		return 0, 0, false
	}
	if s[h] == 'e' && s[h+1] == 'y' {
		p := i + 1
		pe := runFwd(s, p, isKeyByte)
		if pe-p >= 12 && s[p] == 'e' && s[p+1] == 'y' && pe < len(s) && s[pe] == '.' {
			se := runFwd(s, pe+1, isKeyByte)
			for se < len(s) && s[se] == '=' {
				se++
			}
			if se == len(s) || !isAlnum(s[se]) {
				return h, se, true
			}
		}
		if raw && (pe == len(s) || s[pe] == '\\') && pe > p+1 && s[p] == 'e' {
			return h, pe, true
		}
	}
	if n := i - h; n >= 24 && n <= 26 && (s[h] == 'M' || s[h] == 'N' || s[h] == 'O') {
		p := i + 1
		pe := runFwd(s, p, isKeyByte)
		if pe-p == 6 && pe < len(s) && s[pe] == '.' {
			se := runFwd(s, pe+1, isKeyByte)
			if se-(pe+1) >= 27 && (se == len(s) || !isAlnum(s[se])) {
				return h, se, true
			}
		}
	}
	return 0, 0, false
}

// genericGitHubAt finds GitHub tokens of prefixes the table does not list,
// gh?_ (one lower-case letter), with a body of 30 or more letters and
// digits that looks generated.
func genericGitHubAt(s []byte, i int, raw bool) (int, int, bool) {
	st := i - 3
	if st < 0 || s[st] != 'g' || s[st+1] != 'h' || s[st+2] < 'a' || s[st+2] > 'z' || !wordStart(s, st, raw) {
		return 0, 0, false
	}
	e := runFwd(s, i+1, isAlnum)
	if e-(i+1) >= 30 && randomish(s[i+1:e]) && (e == len(s) || !isKeyByte(s[e])) {
		return st, e, true
	}
	return 0, 0, false
}

// genericGitLabAt finds GitLab tokens of prefixes the table does not list,
// gl and one to six lower-case letters then '-', with a body of 20 or more
// that looks generated.
func genericGitLabAt(s []byte, i int, raw bool) (int, int, bool) {
	st := runBack(s, i, func(c byte) bool { return c >= 'a' && c <= 'z' })
	if raw && !hasPrefixAt(s, st, "gl") {
		st = escStart(s, runBack(s, i, isAlnum), i, raw)
	}
	if n := i - st; n < 3 || n > 8 || s[st] != 'g' || s[st+1] != 'l' || !wordStart(s, st, raw) {
		return 0, 0, false
	}
	e := i + 1
	for e < len(s) && e-(i+1) < 256 && isKeyByte(s[e]) {
		e++
	}
	if e-(i+1) == 256 {
		return st, runFwd(s, e, isKeyByte), true // that long: a token
	}
	if e-(i+1) >= 20 && randomish(s[i+1:e]) && (e == len(s) || !isAlnum(s[e])) {
		return st, e, true
	}
	return 0, 0, false
}

// mailchimpAt finds a Mailchimp API key: 32 hex digits, "-us" and a
// data-centre number.
func mailchimpAt(s []byte, i int, raw bool) (int, int, bool) {
	if !hasPrefixAt(s, i+1, "us") {
		return 0, 0, false
	}
	st := runBack(s, i, isHex)
	if raw && i-st > 32 {
		st = escStart(s, st, i, raw)
	}
	if i-st != 32 || !wordStart(s, st, raw) {
		return 0, 0, false
	}
	e := runFwd(s, i+3, func(c byte) bool { return c >= '0' && c <= '9' })
	if e == i+3 || e-(i+3) > 2 || e < len(s) && isAlnum(s[e]) {
		return 0, 0, false
	}
	return st, e, true
}

// telegramAt finds a Telegram bot token at the colon s[i]: the bot's
// numeric id (5 to 16 digits), ':', and 35 base64url bytes starting "A".
func telegramAt(s []byte, i int, raw bool) (int, int, bool) {
	st := runBack(s, i, func(c byte) bool { return c >= '0' && c <= '9' })
	if n := i - st; n < 5 || n > 16 || !wordStart(s, st, raw) || i+1 >= len(s) || s[i+1] != 'A' {
		return 0, 0, false
	}
	e := runFwd(s, i+1, isKeyByte)
	if e-(i+1) == 35 && (e == len(s) || !isAlnum(s[e])) || raw && e < len(s) && s[e] == '\\' && e-(i+1) >= 20 {
		return st, e, true
	}
	return 0, 0, false
}
