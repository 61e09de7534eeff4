package redact

// Frames shaped like the ones a 2026.9.6 gateway sends (see
// docs/real-gateway.md in the shared docs), with values made up for tests.

const (
	challengeV4 = `{"type":"event","event":"connect.challenge","payload":{"nonce":"4f1d0c2a-9e8b-4c7d-a6f5-0e1d2c3b4a59","ts":1795317835055,"capabilities":["model-catalog-snapshot"]}}`

	connectV4 = `{"type":"req","id":"r1-connect","method":"connect","params":{"minProtocol":4,"maxProtocol":4,` +
		`"client":{"id":"cli","displayName":"probe on alice-laptop","version":"0.1.0","platform":"linux","mode":"cli","instanceId":"0b6f4a7e-2c1d-4e8f-9a3b-5c6d7e8f9a0b"},` +
		`"role":"operator","scopes":["operator.admin","operator.read","operator.write","operator.approvals"],` +
		`"caps":["tool-events"],"commands":[],"permissions":{},"auth":{"token":"oc-test-shared-token-0001"},` +
		`"locale":"en-US","userAgent":"clawtap/0.1.0",` +
		`"device":{"id":"9c3e1f7a5b2d4c6e8f0a1b3c5d7e9f1a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d0e","publicKey":"Qm9ndXNQdWJsaWNLZXlGb3JUZXN0c09ubHkxMjM0NTY","signature":"c2lnbmF0dXJlLXRoYXQtbXVzdC1ub3Qtc3Vydml2ZQ","signedAt":1795317835055,"nonce":"4f1d0c2a-9e8b-4c7d-a6f5-0e1d2c3b4a59"}}}`

	connectV4Redacted = `{"type":"req","id":"r1-connect","method":"connect","params":{"minProtocol":4,"maxProtocol":4,` +
		`"client":{"id":"cli","displayName":"probe on alice-laptop","version":"0.1.0","platform":"linux","mode":"cli","instanceId":"0b6f4a7e-2c1d-4e8f-9a3b-5c6d7e8f9a0b"},` +
		`"role":"operator","scopes":["operator.admin","operator.read","operator.write","operator.approvals"],` +
		`"caps":["tool-events"],"commands":[],"permissions":{},"auth":{"token":"__CLAWTAP_REDACTED__"},` +
		`"locale":"en-US","userAgent":"clawtap/0.1.0",` +
		`"device":{"id":"9c3e1f7a5b2d4c6e8f0a1b3c5d7e9f1a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d0e","publicKey":"Qm9ndXNQdWJsaWNLZXlGb3JUZXN0c09ubHkxMjM0NTY","signature":"__CLAWTAP_REDACTED__","signedAt":1795317835055,"nonce":"__CLAWTAP_REDACTED__"}}}`

	// A node connect with every auth field of v4 and a pathEnv.
	connectNodeAll = `{"type":"req","id":"c1","method":"connect","params":{"minProtocol":3,"maxProtocol":4,"client":{"id":"node-host","version":"1","platform":"linux","mode":"node"},"role":"node",` +
		`"pathEnv":"/home/alice/bin:/usr/bin","auth":{"token":"t-1","password":"p-2","deviceToken":"d-3","bootstrapToken":"b-4","approvalRuntimeToken":"a-5","agentRuntimeIdentityToken":"i-6","futureThing":"f-7"}}}`
	connectNodeAllRedacted = `{"type":"req","id":"c1","method":"connect","params":{"minProtocol":3,"maxProtocol":4,"client":{"id":"node-host","version":"1","platform":"linux","mode":"node"},"role":"node",` +
		`"pathEnv":"__CLAWTAP_REDACTED__","auth":{"token":"__CLAWTAP_REDACTED__","password":"__CLAWTAP_REDACTED__","deviceToken":"__CLAWTAP_REDACTED__","bootstrapToken":"__CLAWTAP_REDACTED__","approvalRuntimeToken":"__CLAWTAP_REDACTED__","agentRuntimeIdentityToken":"__CLAWTAP_REDACTED__","futureThing":"__CLAWTAP_REDACTED__"}}}`

	helloV4 = `{"type":"res","id":"r1-connect","ok":true,"payload":{"type":"hello-ok","protocol":4,` +
		`"server":{"version":"2026.9.6","buildId":"2026.9.6-release-eb377ac","bootId":"7d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d","controlUiBuildSource":"bundled","connId":"ffa8dd64-1b2c-4d3e-8f4a-5b6c7d8e9f0a"},` +
		`"features":{"methods":["chat.send","device.token.rotate","secrets.resolve","talk.config"],"events":["agent","chat"],"capabilities":["tool-events"]},` +
		`"snapshot":{"suspension":{"phase":"accepting"},"presence":[],"stateVersion":{"presence":1,"health":3},"uptimeMs":4242,` +
		`"appliedConfigHash":"hmac-sha256:v1:0f1e2d3c","sessionDefaults":{"defaultAgentId":"main","mainKey":"main","mainSessionKey":"agent:main:main"},` +
		`"configPath":"/home/alice/.openclaw/openclaw.json","stateDir":"/home/alice/.openclaw","authMode":"token"},` +
		`"controlUiWidgetKinds":["chart"],"pluginSurfaceUrls":{"canvas":"http://127.0.0.1:18789/__openclaw__/cap/cap-token-plugin-A1/index.html","notes":["http://127.0.0.1:18789/__openclaw__/cap/cap-token-plugin-B2"]},` +
		`"auth":{"method":"token","role":"operator","scopes":["operator.admin","operator.read"],"recoveryScope":"recovery-scope-secret-9","recoveryMigrationAllowed":true,` +
		`"deviceToken":"device-token-secret-8","issuedAtMs":1795317835070,"deviceTokens":[{"role":"operator","deviceToken":"device-token-secret-7","scopes":["operator.read"]}]},` +
		`"policy":{"maxPayload":26214400,"maxBufferedBytes":52428800,"tickIntervalMs":30000,"attachments":{"maxBytes":19464192,"maxImageBytes":6291456},"allowedSessionVisibilities":["private","shared"],"hasMultipleSessionSharingIdentities":false}}}`

	helloV4Redacted = `{"type":"res","id":"r1-connect","ok":true,"payload":{"type":"hello-ok","protocol":4,` +
		`"server":{"version":"2026.9.6","buildId":"2026.9.6-release-eb377ac","bootId":"7d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d","controlUiBuildSource":"bundled","connId":"ffa8dd64-1b2c-4d3e-8f4a-5b6c7d8e9f0a"},` +
		`"features":{"methods":["chat.send","device.token.rotate","secrets.resolve","talk.config"],"events":["agent","chat"],"capabilities":["tool-events"]},` +
		`"snapshot":{"suspension":{"phase":"accepting"},"presence":[],"stateVersion":{"presence":1,"health":3},"uptimeMs":4242,` +
		`"appliedConfigHash":"hmac-sha256:v1:0f1e2d3c","sessionDefaults":{"defaultAgentId":"main","mainKey":"main","mainSessionKey":"agent:main:main"},` +
		`"configPath":"/home/alice/.openclaw/openclaw.json","stateDir":"/home/alice/.openclaw","authMode":"token"},` +
		`"controlUiWidgetKinds":["chart"],"pluginSurfaceUrls":{"canvas":"http://127.0.0.1:18789/__openclaw__/cap/__CLAWTAP_REDACTED__/index.html","notes":["http://127.0.0.1:18789/__openclaw__/cap/__CLAWTAP_REDACTED__"]},` +
		`"auth":{"method":"token","role":"operator","scopes":["operator.admin","operator.read"],"recoveryScope":"__CLAWTAP_REDACTED__","recoveryMigrationAllowed":true,` +
		`"deviceToken":"__CLAWTAP_REDACTED__","issuedAtMs":1795317835070,"deviceTokens":[{"role":"operator","deviceToken":"__CLAWTAP_REDACTED__","scopes":["operator.read"]}]},` +
		`"policy":{"maxPayload":26214400,"maxBufferedBytes":52428800,"tickIntervalMs":30000,"attachments":{"maxBytes":19464192,"maxImageBytes":6291456},"allowedSessionVisibilities":["private","shared"],"hasMultipleSessionSharingIdentities":false}}}`

	helloV3 = `{"type":"res","id":"1","ok":true,"payload":{"type":"hello-ok","protocol":3,"server":{"version":"2026.4.15","connId":"c-1"},"canvasHostUrl":"http://127.0.0.1:18793/__openclaw__/cap/v3-canvas-cap-token","auth":{"role":"operator","scopes":[],"deviceToken":"v3-device-token"},"policy":{"maxPayload":26214400,"maxBufferedBytes":52428800,"tickIntervalMs":30000}}}`

	helloV3Redacted = `{"type":"res","id":"1","ok":true,"payload":{"type":"hello-ok","protocol":3,"server":{"version":"2026.4.15","connId":"c-1"},"canvasHostUrl":"http://127.0.0.1:18793/__openclaw__/cap/__CLAWTAP_REDACTED__","auth":{"role":"operator","scopes":[],"deviceToken":"__CLAWTAP_REDACTED__"},"policy":{"maxPayload":26214400,"maxBufferedBytes":52428800,"tickIntervalMs":30000}}}`

	badToken = `{"type":"res","id":"r1-connect","ok":false,"error":{"code":"INVALID_REQUEST","message":"unauthorized: gateway token mismatch (use this gateway's gateway.auth.token or pair the device)","details":{"code":"AUTH_TOKEN_MISMATCH","authReason":"token_mismatch","canRetryWithDeviceToken":true,"recommendedNextStep":"retry_with_device_token"}}}`

	chatSend  = `{"type":"req","id":"r2-chat.send","method":"chat.send","params":{"sessionKey":"agent:main:main","message":"Tell me a joke about otters","idempotencyKey":"5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d"}}`
	chatSent  = `{"type":"res","id":"r2-chat.send","ok":true,"payload":{"runId":"5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d","status":"started"}}`
	chatDelta = `{"type":"event","event":"chat","seq":17,"payload":{"runId":"5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d","sessionKey":"agent:main:main","agentId":"main","seq":5,"state":"delta","deltaText":" otters","message":{"role":"assistant","content":[{"type":"text","text":"Two otters"}],"timestamp":1795317836400}}}`
	agentText = `{"type":"event","event":"agent","seq":16,"payload":{"runId":"5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d","stream":"assistant","data":{"text":"Two otters","delta":" otters","itemId":"i1"},"sessionKey":"agent:main:main","agentId":"main","seq":5,"ts":1795317836399,"isHeartbeat":false}}`
	agentUse  = `{"type":"event","event":"agent","seq":20,"payload":{"runId":"5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d","stream":"usage","data":{"inputTokens":1200,"outputTokens":12,"cacheReadTokens":0,"totalTokens":1212,"maxTokens":4096},"sessionKey":"agent:main:main","seq":9,"ts":1795317836500}}`
	chatFinal = `{"type":"event","event":"chat","seq":23,"payload":{"runId":"5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d","sessionKey":"agent:main:main","agentId":"main","seq":12,"state":"final","message":{"role":"assistant","content":[{"type":"text","text":"Two otters walk into a bar."}],"timestamp":1795317836600,"__openclaw":{"runId":"5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d","idempotencyKey":"5a4b3c2d-1e0f-4a9b-8c7d-6e5f4a3b2c1d"}},"stopReason":"end_turn","usage":{"input":1200,"output":12,"tokenCount":1212}}}`
	tick      = `{"type":"event","event":"tick","payload":{"ts":1795317860000},"seq":30}`
	heartbeat = `{"type":"event","event":"heartbeat","payload":{"ts":1795317861000,"status":"ok-token","durationMs":12,"silent":true},"seq":31}`
	lifecycle = `{"type":"event","event":"agent","seq":22,"payload":{"runId":"r9","stream":"lifecycle","data":{"phase":"end","endedAt":1795317836590,"stopReason":"end_turn","terminalReply":true},"sessionKey":"agent:main:main","seq":11,"ts":1795317836590}}`
	sessRow   = `{"type":"event","event":"sessions.changed","seq":40,"payload":{"sessionKey":"agent:main:main","reason":"run-finished","ts":1795317836700,"session":{"key":"agent:main:main","sessionId":"s-1","updatedAt":1795317836700,"model":"fake-model","contextTokens":120000,"inputTokens":1200,"outputTokens":12,"thinkingLevel":"low","authProfile":"default","lastChannel":"webchat"}}}`

	toolStart  = `{"type":"event","event":"agent","payload":{"runId":"r7","stream":"tool","data":{"phase":"start","name":"exec","toolCallId":"call_1","args":{"command":"ls -la /home/alice/projects","timeout":30}},"sessionKey":"agent:main:main","seq":7,"ts":1795317837000}}`
	toolResult = `{"type":"event","event":"agent","payload":{"runId":"r7","stream":"tool","data":{"phase":"result","name":"exec","toolCallId":"call_1","isError":false,"result":{"content":[{"type":"text","text":"total 8\ndrwxr-xr-x 2 alice alice 4096 notes.txt"}],"details":{"exitCode":0}}},"sessionKey":"agent:main:main","seq":8,"ts":1795317837100}}`

	approval = `{"type":"event","event":"exec.approval.requested","seq":50,"payload":{"id":"ap-1","approvalKind":"exec","createdAtMs":1795317838000,"expiresAtMs":1795317958000,` +
		`"request":{"command":"rm -rf /home/alice/tmp/cache","commandArgv":["rm","-rf","/home/alice/tmp/cache"],"envKeys":["OPENAI_API_KEY"],"cwd":"/home/alice/projects/site",` +
		`"systemRunPlan":{"argv":["rm","-rf","/home/alice/tmp/cache"],"cwd":"/home/alice/projects/site","agentId":"main","sessionKey":"agent:main:telegram:direct:123456789"},` +
		`"host":"gateway","security":"allowlist","ask":"on-miss","agentId":"main","sessionKey":"agent:main:telegram:direct:123456789","turnSourceChannel":"telegram","turnSourceTo":"123456789","turnSourceAccountId":"acct-4242"}}}`

	presenceV4 = `{"type":"event","event":"presence","seq":3,"stateVersion":{"presence":2,"health":3},"payload":{"presence":[` +
		`{"host":"gateway","mode":"gateway","reason":"self","ts":1795317823900},` +
		`{"host":"alice-laptop","ip":"192.168.1.23","version":"0.1.0","platform":"linux","mode":"ui","reason":"connect","ts":1795317835452,"deviceId":"9c3e1f7a5b2d4c6e8f0a1b3c5d7e9f1a2b4c6d8e0f1a3b5c7d9e1f2a4b6c8d0e","instanceId":"0b6f4a7e-2c1d-4e8f-9a3b-5c6d7e8f9a0b","user":{"id":"u-77","name":"Alice Example","email":"alice@example.com","avatarUrl":"https://example.com/a.png"}}]}}`
)
