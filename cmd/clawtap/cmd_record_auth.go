package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/clawtap/clawtap/pkg/gateway"
	"github.com/clawtap/clawtap/pkg/record"
)

// readSecretFile reads a token or password file ("-" is stdin), trimmed.
func (a *app) readSecretFile(flag, path string) (string, error) {
	var b []byte
	var err error
	if path == "-" {
		b, err = io.ReadAll(io.LimitReader(a.stdin, 1<<16))
	} else {
		b, err = os.ReadFile(path)
		if err == nil {
			if fi, serr := os.Stat(path); serr == nil && fi.Mode().Perm()&0o077 != 0 {
				a.warnf("%s %s is readable by other users (mode %04o); chmod 600 it", flag, path, fi.Mode().Perm())
			}
		}
	}
	if err != nil {
		return "", usageError("check the path given to "+flag, "read %s: %v", flag, err)
	}
	s := strings.TrimSpace(string(b))
	if s == "" {
		return "", usageError("put the secret on the first line of the file", "%s %s is empty", flag, path)
	}
	return s, nil
}

// recordDialOptions gathers credentials and the device identity.
func (a *app) recordDialOptions(f *recordFlags) (gateway.Options, error) {
	o := gateway.Options{ClientVersion: version, UserAgent: "clawtap/" + version, DisplayName: "clawtap recorder"}
	var scopes []string
	for _, s := range strings.Split(f.scopes, ",") {
		if s = strings.TrimSpace(s); s != "" {
			scopes = append(scopes, s)
		}
	}
	if len(scopes) == 0 {
		return o, usageError("e.g. --scopes operator.read", "--scopes is empty")
	}
	o.Scopes = scopes
	var err error
	switch {
	case f.tokenFile != "":
		if o.Token, err = a.readSecretFile("--token-file", f.tokenFile); err != nil {
			return o, err
		}
	case a.getenv("OPENCLAW_GATEWAY_TOKEN") != "":
		o.Token = strings.TrimSpace(a.getenv("OPENCLAW_GATEWAY_TOKEN"))
	}
	switch {
	case f.passwordFile != "":
		if o.Password, err = a.readSecretFile("--password-file", f.passwordFile); err != nil {
			return o, err
		}
	case a.getenv("OPENCLAW_GATEWAY_PASSWORD") != "":
		o.Password = strings.TrimSpace(a.getenv("OPENCLAW_GATEWAY_PASSWORD"))
	}
	if f.tokenFile == "-" && f.passwordFile == "-" {
		return o, usageError("read one of them from a file", "--token-file and --password-file cannot both read stdin")
	}
	if f.noDevice {
		return o, nil
	}
	dir := f.identityDir
	if dir == "" {
		dir = a.getenv("CLAWTAP_IDENTITY_DIR")
	}
	if dir == "" {
		if dir, err = gateway.DefaultStoreDir(); err != nil {
			a.warnf("%v; connecting without a device identity", err)
			return o, nil
		}
	}
	store := &gateway.Store{Dir: dir}
	id, err := store.Identity()
	if err != nil {
		a.warnf("device identity in %s: %v; connecting without one (add --no-device to silence this)", filepath.Clean(dir), err)
		return o, nil
	}
	o.Identity, o.Store = id, store
	o.Logf = a.warnf
	return o, nil
}

// recordRedaction is what record removes before anything touches disk:
// credentials always, content with --redact-content, nothing with
// --no-redact. --salt-file keys the content placeholders.
func recordRedaction(f *recordFlags) (record.Redaction, error) {
	red := record.Redaction{Off: f.noRedact, Content: f.redactContent}
	if f.saltFile == "" {
		return red, nil
	}
	b, err := os.ReadFile(f.saltFile)
	if err != nil {
		return red, usageError("check the path given to --salt-file", "read --salt-file: %v", err)
	}
	if len(b) == 0 {
		return red, usageError("put some random bytes in it", "--salt-file %s is empty", f.saltFile)
	}
	red.Salt = b
	return red, nil
}
