package reshape

// The client's projection, for the tests of package reshape_test.

type Projection struct{ p *projection }

func NewProjection() *Projection { return &Projection{newProjection()} }

func (p *Projection) ChatDelta(run, session, agentID string, payload []byte) (string, bool) {
	return p.p.chatDelta(run, session, agentID, payload)
}

func (p *Projection) AgentText(run, session, agentID string, data []byte) (string, bool) {
	return p.p.agentText(run, session, agentID, data)
}

func (p *Projection) Forget(run string) { p.p.forget(run) }

var MemberSpan = memberSpan
