package check

import "strings"

// knownEvents are the event names gateway releases advertise (v3 and v4,
// gateway-protocol §3) plus the undiscovered ones seen on the wire.
var knownEvents = func() map[string]bool {
	names := `connect.challenge agent chat session.message session.tool sessions.changed presence tick
talk.mode shutdown health heartbeat cron node.pair.requested node.pair.resolved node.invoke.request
device.pair.requested device.pair.resolved voicewake.changed voicewake.routing.changed
exec.approval.requested exec.approval.resolved exec.approval.pending plugin.approval.requested plugin.approval.resolved
update.available chat.side_result chat.metadata.changed models.snapshot ui.command session.approval
session.observer session.operation session.sharing session.sharing.evidence session.suggestion session.typing
controlUi.sessionPullRequests.changed plugins.controlUi.changed talk.event talk.voice.change
gateway.suspension task task.suggestion node.presence node.hostStats node.runnerInventory.changed
node.invoke.cancel node.invoke.input device.pair.changed device.pair.setup.completed
device.pair.setup.deliveryUncertain users.prefs.changed skills.changed plugins.changed
plugins.install.progress question.requested question.resolved openclaw.approval.requested
openclaw.approval.resolved terminal.data terminal.exit update.run.changed portal.changed
progressCard.changed mentions.changed chat.send_timing session.narration`
	m := make(map[string]bool)
	for _, n := range strings.Fields(names) {
		m[n] = true
	}
	return m
}()

// knownEvent reports whether an event name is one a gateway sends;
// plugin.* events come from plugins and are always accepted.
func knownEvent(name string) bool {
	return knownEvents[name] || strings.HasPrefix(name, "plugin.")
}
