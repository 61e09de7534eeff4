package recordcli

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/pkg/gateway"
	"github.com/clawtap/clawtap/pkg/record"
)

// DialOptions gathers credentials (from files or the environment, never
// the command line) and the device identity.
func DialOptions(env *cli.Env, c Config) (gateway.Options, error) {
	o := gateway.Options{ClientVersion: c.Version, UserAgent: "clawtap/" + c.Version, DisplayName: "clawtap recorder"}
	var scopes []string
	for _, s := range strings.Split(c.Scopes, ",") {
		if s = strings.TrimSpace(s); s != "" {
			scopes = append(scopes, s)
		}
	}
	if len(scopes) == 0 {
		return o, cli.Usage("e.g. --scopes operator.read", "--scopes is empty")
	}
	o.Scopes = scopes
	var err error
	switch {
	case c.TokenFile != "":
		if o.Token, err = env.ReadSecretFile("--token-file", c.TokenFile); err != nil {
			return o, err
		}
	case env.Getenv("OPENCLAW_GATEWAY_TOKEN") != "":
		o.Token = strings.TrimSpace(env.Getenv("OPENCLAW_GATEWAY_TOKEN"))
	}
	switch {
	case c.PasswordFile != "":
		if o.Password, err = env.ReadSecretFile("--password-file", c.PasswordFile); err != nil {
			return o, err
		}
	case env.Getenv("OPENCLAW_GATEWAY_PASSWORD") != "":
		o.Password = strings.TrimSpace(env.Getenv("OPENCLAW_GATEWAY_PASSWORD"))
	}
	if c.TokenFile == "-" && c.PasswordFile == "-" {
		return o, cli.Usage("read one of them from a file", "--token-file and --password-file cannot both read stdin")
	}
	if c.NoDevice {
		return o, nil
	}
	dir := c.IdentityDir
	if dir == "" {
		dir = env.Getenv("CLAWTAP_IDENTITY_DIR")
	}
	if dir == "" {
		if dir, err = gateway.DefaultStoreDir(); err != nil {
			env.Warnf("%v; connecting without a device identity", err)
			return o, nil
		}
	}
	store := &gateway.Store{Dir: dir}
	id, err := store.Identity()
	if err != nil {
		env.Warnf("device identity in %s: %v; connecting without one (add --no-device to silence this)", filepath.Clean(dir), err)
		return o, nil
	}
	o.Identity, o.Store = id, store
	o.Logf = env.Warnf
	return o, nil
}

// Redaction is what record removes before anything touches disk:
// credentials always, content with --redact-content, nothing with
// --no-redact. --salt-file keys the content placeholders.
func Redaction(c Config) (record.Redaction, error) {
	red := record.Redaction{Off: c.NoRedact, Content: c.RedactContent}
	if c.SaltFile == "" {
		return red, nil
	}
	b, err := os.ReadFile(c.SaltFile)
	if err != nil {
		return red, cli.Usage("check the path given to --salt-file", "read --salt-file: %v", err)
	}
	if len(b) == 0 {
		return red, cli.Usage("put some random bytes in it", "--salt-file %s is empty", c.SaltFile)
	}
	red.Salt = b
	return red, nil
}
