package replay

// Intent is one thing a UI's policy decided for a frame or a timer:
// clawboo's EventIntent (*policy.Intent) or a Claw3D command
// (*claw3d.Intent). Each renders itself in its UI's own shape.
type Intent interface {
	// IntentKind is the intent's kind: queueLivePatch, ignore, …
	IntentKind() string
	// IntentAgent is the agent it concerns ("" for none).
	IntentAgent() string
	// AppendJSONAt appends the intent as JSON, its times less base.
	AppendJSONAt(dst []byte, base int64) []byte
}

// IgnoreKind is the kind of an intent that does nothing, in both UIs.
const IgnoreKind = "ignore"
