package release

// The releases clawtap names. 2026.9.6 is the newest a real gateway can be
// installed at for the end-to-end tests; 2026.9.7 and 2026.9.8 are known
// from upstream's code and a third-party client's notes (gateway-protocol
// §11), and captures of their wire are made with clawtap reshape.
var (
	V2026_9_2 = MustParse("2026.9.2")
	V2026_9_4 = MustParse("2026.9.4")
	V2026_9_5 = MustParse("2026.9.5")
	V2026_9_6 = MustParse("2026.9.6")
	V2026_9_7 = MustParse("2026.9.7")
	V2026_9_8 = MustParse("2026.9.8")
)

// Change is one change of the gateway's wire that kept the protocol
// number: what a capture of Since or later may show.
type Change struct {
	ID    string  // a stable name (the check rules cite it)
	Name  string  // a few words for people
	Since Version // the release that introduced it
	Wire  string  // what the frames show, one clause
	// Hazard is what a UI that ignores it does, one clause.
	Hazard string
	// Reshape says what clawtap reshape does with it; "not simulated: …"
	// when it cannot make it, with why.
	Reshape string
}

// Change ids.
const (
	CoalescedDeltas   = "coalesced-deltas"
	RequestConflict   = "chat-request-conflict"
	StatusMidTurn     = "status-mid-turn"
	Retraction        = "retraction-delta"
	AppendOnly        = "append-only-live-text"
	LifecycleRestart  = "lifecycle-restart"
	ErrorAfterAborted = "error-after-aborted"
	NewValues         = "new-values-9.7"
	TasksRemoved      = "tasks-removed"
)

// Changes lists the wire changes after 2026.9.1, oldest first.
var Changes = []Change{
	{CoalescedDeltas, "coalesced deltas", V2026_9_2,
		"under back-pressure a run's pending text deltas are merged per connection: fewer deltas, longer deltaText, the payload seq skips while the frame seq stays contiguous",
		"nothing for a UI that reads cumulative text; a per-run seq check raises a false alarm",
		"not simulated: coalescing depends on when each send completes, and a capture already holds what happened"},
	{RequestConflict, "idempotency key bound to its input", V2026_9_2,
		"a chat.send idempotency key is bound to its message: the same key with other input is refused (INVALID_REQUEST, details.reason chat-request-conflict)",
		"a retry that reuses the key after editing the text fails",
		"nothing to do: a 2026.9.6 capture already behaves so"},
	{StatusMidTurn, "mid-turn status with retry", V2026_9_4,
		"chat state:status gains retry {attempt, maxAttempts, reason} and may come mid-turn, after deltas",
		"a UI that treats status as a run start restarts the bubble",
		"nothing to do: a 2026.9.6 capture already behaves so"},
	{Retraction, "the retraction delta", V2026_9_5,
		"a retraction delta {deltaText:\"\", replace:true} clears the provisional text",
		"a UI that ignores empty deltas, or keeps the longest text, leaves text that should vanish",
		"nothing to do: a 2026.9.6 capture already behaves so"},
	{AppendOnly, "append-only live text", V2026_9_7,
		"append-only live text: per connection and run, a chat delta carries the cumulative message only when the connection has no baseline or the text is not an append; otherwise deltaText alone. agent assistant events likewise drop data.text",
		"a UI that reads message or data.text freezes the live text on its first fragment until the final",
		"rewritten exactly, per connection: see docs/reshape.md"},
	{LifecycleRestart, "a second lifecycle start", V2026_9_7,
		"a run may emit a second lifecycle start on the same runId, with no terminal between (an unfinished-plan check continues the turn)",
		"a UI keyed on \"start = new run\" resets or duplicates the bubble",
		"not simulated: it depends on the run's saved plan"},
	{ErrorAfterAborted, "an error after an abort", V2026_9_7,
		"a chat error may follow a chat aborted of the same run (stopReason aborted-partial-persistence-failed: the stopped reply was not saved)",
		"a second terminal: a duplicated error line, or an error painted over an aborted turn",
		"not simulated: it depends on a storage failure"},
	{NewValues, "new values and events", V2026_9_7,
		"errorKind state_contention, status phase waiting_for_state, session status interrupted and the session.narration event",
		"unknown values and events to classify",
		"not simulated: each depends on what happened at run time"},
	{TasksRemoved, "tasks.* removed", V2026_9_7,
		"the tasks.* methods are removed (and the task event leaves hello-ok's list)",
		"a tasks.* call fails",
		"hello-ok's method and event lists are rewritten; a recorded tasks.* answer is kept and reported"},
}

// Lookup returns the change with the given id.
func Lookup(id string) (Change, bool) {
	for _, c := range Changes {
		if c.ID == id {
			return c, true
		}
	}
	return Change{}, false
}

// Since is the release that introduced a change ("" for an unknown id).
func Since(id string) string {
	c, _ := Lookup(id)
	return c.Since.String()
}

// Newest is the newest release clawtap knows the wire of.
var Newest = V2026_9_8

// Reshapable lists the releases clawtap reshape writes.
var Reshapable = []Version{V2026_9_7}
