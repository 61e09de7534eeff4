package validate

import "strings"

// The published schema names its definitions but does not say which event
// or method each one describes: the gateway's code ties them together.
// clawtap follows the naming the schema uses throughout — event "chat" is
// ChatEvent, method "chat.send" takes ChatSendParams and answers
// ChatSendResult, "talk.event" is TalkEvent — matched without regard to
// case (tools.github.status takes ToolsGitHubStatusParams), plus the
// exceptions below.

// resultAliases are results whose definition does not follow the naming.
var resultAliases = map[string]string{
	"connect": "HelloOk", // the handshake's answer
}

// paramsAliases are methods whose params the 2026.9.6 gateway checks
// against a definition of another name (read off its method handlers).
// A definition missing from a schema simply leaves the params unchecked.
var paramsAliases = map[string]string{
	"agent.identity.get":             "AgentIdentityParams",
	"config.openFile":                "ConfigGetParams",
	"device.scopes.requestUpgrade":   "ScopeUpgradeRequest",
	"device.scopes.waitUpgrade":      "ScopeUpgradeWait",
	"models.authLogin":               "SystemAgentSetupAuthStartParams",
	"node.pending.pull":              "NodeListParams",
	"openclaw.changes.list":          "SystemChangesListParams",
	"openclaw.chat":                  "SystemAgentChatParams",
	"openclaw.chat.history":          "SystemAgentChatHistoryParams",
	"openclaw.setup.activate":        "SystemAgentSetupActivateParams",
	"openclaw.setup.activate.start":  "SystemAgentSetupActivateStartParams",
	"openclaw.setup.auth.start":      "SystemAgentSetupAuthStartParams",
	"openclaw.setup.detect":          "SystemAgentSetupDetectParams",
	"openclaw.setup.prepare.start":   "SystemAgentSetupAuthStartParams",
	"openclaw.setup.verify":          "SystemAgentSetupVerifyParams",
	"push.web.preferences.get":       "WebPushPreferencesGetParams",
	"push.web.preferences.set":       "WebPushPreferencesSetParams",
	"push.web.subscribe":             "WebPushSubscribeParams",
	"push.web.test":                  "WebPushTestParams",
	"push.web.unsubscribe":           "WebPushUnsubscribeParams",
	"push.web.vapidPublicKey":        "WebPushVapidPublicKeyParams",
	"session.members.add":            "SessionMemberAddParams",
	"session.members.remove":         "SessionMemberRemoveParams",
	"sessions.subscribe":             "SessionsListParams",
	"sessions.viewers.set":           "SessionsViewerPresenceSetParams",
	"skills.proposals.historyScan":   "SkillsProposalHistoryScanParams",
	"skills.proposals.historyStatus": "SkillsProposalHistoryStatusParams",
	"tasks.dismiss":                  "TasksRecoveryParams",
	"tasks.retry":                    "TasksRecoveryParams",
}

// pascal turns a dotted name into the schema's naming: "chat.send" →
// "ChatSend", "device.pair.requested" → "DevicePairRequested".
func pascal(name string) string {
	var b strings.Builder
	up := true
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '.' || c == '-' || c == '_' || c == ':' || c == '/':
			up = true
		case up && c >= 'a' && c <= 'z':
			b.WriteByte(c - ('a' - 'A'))
			up = false
		default:
			b.WriteByte(c)
			up = false
		}
	}
	return b.String()
}

// lookup finds a definition by name, exactly or else ignoring case.
func (s *Schema) lookup(name string) string {
	if name == "" {
		return ""
	}
	if s.defs[name] {
		return name
	}
	return s.folded[strings.ToLower(name)]
}

// EventSchema returns the definition that describes the payload of event
// name, or "" when the schema has none.
func (s *Schema) EventSchema(name string) string {
	p := pascal(name)
	if d := s.lookup(p + "Event"); d != "" {
		return d
	}
	if strings.HasSuffix(p, "Event") {
		return s.lookup(p)
	}
	return ""
}

// ParamsSchema returns the definition of method's params, or "".
func (s *Schema) ParamsSchema(method string) string {
	if d := s.lookup(paramsAliases[method]); d != "" {
		return d
	}
	return s.lookup(pascal(method) + "Params")
}

// ResultSchema returns the definition of method's result (a successful
// response's payload), or "".
func (s *Schema) ResultSchema(method string) string {
	if d := s.lookup(resultAliases[method]); d != "" {
		return d
	}
	return s.lookup(pascal(method) + "Result")
}

// KnowsMethod reports whether the schema lists method or describes its
// params or result.
func (s *Schema) KnowsMethod(method string) bool {
	return s.methods[method] || s.ParamsSchema(method) != "" || s.ResultSchema(method) != ""
}
