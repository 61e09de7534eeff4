package main

import (
	"strings"

	"github.com/clawtap/clawtap/internal/cli"
	"github.com/clawtap/clawtap/pkg/webguard"
	"github.com/spf13/pflag"
)

// guardFlags are what the user allows beyond this machine on a listener
// (serve, record's proxy): both take them the same way and hand them to
// pkg/webguard's checks.
type guardFlags struct {
	allowOrigins []string
	allowHosts   []string

	// Checked from the flags above.
	origins []string // normalised (webguard.ParseOrigin)
	hosts   []string
}

// add declares --allow-origin and --allow-host; what names the listener's
// clients ("WebSocket upgrades", "proxied connections").
func (g *guardFlags) add(fl *pflag.FlagSet, what string) {
	fl.StringArrayVar(&g.allowOrigins, "allow-origin", nil, "also accept "+what+" from pages of this browser origin, e.g. http://192.168.1.20:5173 (repeatable; loopback pages are always accepted)")
	fl.StringArrayVar(&g.allowHosts, "allow-host", nil, "also accept requests whose Host names this host, e.g. gw.lan (repeatable; loopback names and the address listened on are always accepted)")
}

// check normalises the origins and hosts.
func (g *guardFlags) check() error {
	g.origins, g.hosts = nil, nil
	for _, s := range g.allowOrigins {
		norm, err := webguard.ParseOrigin(s)
		if err != nil {
			return cli.Usage("give the origin the browser shows for the page, e.g. --allow-origin http://192.168.1.20:5173", "--allow-origin: %v", err)
		}
		g.origins = append(g.origins, norm)
	}
	for _, h := range g.allowHosts {
		h = strings.TrimSpace(h)
		if h == "" || strings.ContainsAny(h, "/:@ ") && !strings.HasPrefix(h, "[") {
			return cli.Usage("give a host name or address without scheme or port, e.g. --allow-host gw.lan", "--allow-host: %q is not a host", h)
		}
		g.hosts = append(g.hosts, h)
	}
	return nil
}
