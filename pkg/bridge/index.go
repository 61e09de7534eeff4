package bridge

import "github.com/clawtap/clawtap/pkg/jsonx"

// Schema names the members of a frame that classification reads: the
// capture reader indexes them while it validates each line
// (capture.Reader.IndexMembers), and the classifier reads them from that
// index instead of walking the frame again (RecordIndexed). Other readers
// of the frame (the redactor's envelope) may look up the same members.
var Schema = jsonx.NewSchema(
	"type", "event", "method", "id", "ok", "seq", "error.code",
	"payload.runId", "payload.sessionKey", "payload.seq", "payload.stopReason",
	"payload.errorMessage", "payload.model", "payload.message", "payload.deltaText",
	"payload.replace", "payload.agentId", "payload.state", "payload.stream",
	"payload.phase", "payload.id",
	"payload.data.phase", "payload.data.text", "payload.data.replace",
	"payload.request.agentId", "payload.request.runId", "payload.request.sessionKey",
)

// The slots of Schema's paths.
var (
	sType, sEvent, sMethod, sID, sOK, sSeq = Schema.Slot("type"), Schema.Slot("event"), Schema.Slot("method"), Schema.Slot("id"), Schema.Slot("ok"), Schema.Slot("seq")
	sError, sErrorCode                     = Schema.Slot("error"), Schema.Slot("error.code")
	sPayload                               = Schema.Slot("payload")
	sRunID, sSessionKey, sPSeq             = Schema.Slot("payload.runId"), Schema.Slot("payload.sessionKey"), Schema.Slot("payload.seq")
	sStopReason, sErrorMessage, sModel     = Schema.Slot("payload.stopReason"), Schema.Slot("payload.errorMessage"), Schema.Slot("payload.model")
	sMessage, sDeltaText, sReplace         = Schema.Slot("payload.message"), Schema.Slot("payload.deltaText"), Schema.Slot("payload.replace")
	sAgentID, sState, sStream              = Schema.Slot("payload.agentId"), Schema.Slot("payload.state"), Schema.Slot("payload.stream")
	sPhase, sPID                           = Schema.Slot("payload.phase"), Schema.Slot("payload.id")
	sData, sDataPhase, sDataText           = Schema.Slot("payload.data"), Schema.Slot("payload.data.phase"), Schema.Slot("payload.data.text")
	sDataReplace                           = Schema.Slot("payload.data.replace")
	sRequest, sReqAgentID, sReqRunID       = Schema.Slot("payload.request"), Schema.Slot("payload.request.agentId"), Schema.Slot("payload.request.runId")
	sReqSessionKey                         = Schema.Slot("payload.request.sessionKey")
)

// readIndexed fills f from the frame's index, as readFrame does by
// walking it; idx must be Exact (no key repeated or escaped at the levels
// read), so the members are what the walk would find.
func (f *fields) readIndexed(frame []byte, idx *jsonx.Index) {
	get := func(slot int) []byte { return idx.Get(frame, slot) }
	f.plain = idx.Plain
	f.typ = f.str(get(sType), slotType)
	f.event = f.str(get(sEvent), slotEvent)
	f.method = f.str(get(sMethod), slotMethod)
	f.idRaw = get(sID)
	f.okRaw = get(sOK)
	if v := get(sSeq); v != nil {
		f.seq, f.hasSeq = jsonx.Int(v)
	}
	if v := get(sError); jsonx.KindOf(v) == jsonx.Object {
		f.code, _ = jsonx.Str(get(sErrorCode))
	}
	p := get(sPayload)
	if p == nil {
		return
	}
	f.payload = p
	if p[0] != '{' {
		return
	}
	f.payloadObj = true
	var local members
	m := f.m
	if m == nil {
		m = &local
	} else {
		gen := m.gen
		*m = members{gen: gen}
	}
	m.ok = true
	if v := get(sRunID); v != nil {
		m.runID = v
		f.runID = f.str(v, slotRunID)
	}
	if v := get(sSessionKey); v != nil {
		m.sessionKey = v
		f.sessionKey = f.str(v, slotSessionKey)
		f.hasSessionKey = jsonx.KindOf(v) == jsonx.String
	}
	m.seq = get(sPSeq)
	m.stopReason = get(sStopReason)
	m.errorMessage = get(sErrorMessage)
	m.model = get(sModel)
	m.message = get(sMessage)
	m.deltaText = get(sDeltaText)
	m.replace = get(sReplace)
	if v := get(sAgentID); v != nil {
		m.agentID = v
		f.agentID, f.hasAgentID = f.strOK(v, slotAgentID)
	}
	if v := get(sState); v != nil {
		m.state = v
		f.state = f.str(v, slotState)
	}
	if v := get(sStream); v != nil {
		m.stream = v
		f.stream = f.str(v, slotStream)
	}
	if v := get(sPhase); v != nil {
		f.phase = f.str(v, slotPhase)
	}
	if v := get(sPID); v != nil {
		f.id = f.str(v, slotID)
	}
	if v := get(sData); v != nil {
		m.data = v
		if v[0] == '{' {
			if dp := get(sDataPhase); dp != nil {
				f.dataPhase, f.hasDataPhase = f.strOK(dp, slotDataPhase)
			}
			m.dataText = get(sDataText)
			m.dataReplace = get(sDataReplace)
		}
	}
	if v := get(sRequest); v != nil && v[0] == '{' {
		f.reqObj = true
		if r := get(sReqAgentID); r != nil {
			f.reqAgentID, f.hasReqAgentID = f.strOK(r, slotReqAgentID)
		}
		if r := get(sReqRunID); r != nil {
			f.reqRunID = f.str(r, slotReqRunID)
		}
		if r := get(sReqSessionKey); r != nil {
			f.reqSK, f.hasReqSK = f.strOK(r, slotReqSessionKey)
		}
	}
}
