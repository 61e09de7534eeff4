package cli

import (
	"io"
	"strings"

	"github.com/spf13/cobra"
)

// Shells are the shells 'clawtap completion' writes a script for.
var Shells = []string{"bash", "zsh", "fish", "powershell"}

// NoShell is the usage error of 'clawtap completion' without a shell it
// knows: args are what it was given instead.
func NoShell(args []string) error {
	hint := "name one: clawtap completion " + strings.Join(Shells, "|")
	if len(args) == 0 {
		return Usage(hint, "completion needs a shell: %s", strings.Join(Shells, ", "))
	}
	return Usage(hint, "unknown shell %q: clawtap completes %s", strings.Join(args, " "), strings.Join(Shells, ", "))
}

// WriteCompletion writes root's completion script for shell to w, with
// each suggestion's description unless desc is false.
func WriteCompletion(w io.Writer, root *cobra.Command, shell string, desc bool) error {
	switch shell {
	case "bash":
		return root.GenBashCompletionV2(w, desc)
	case "zsh":
		if desc {
			return root.GenZshCompletion(w)
		}
		return root.GenZshCompletionNoDesc(w)
	case "fish":
		return root.GenFishCompletion(w, desc)
	case "powershell":
		if desc {
			return root.GenPowerShellCompletionWithDesc(w)
		}
		return root.GenPowerShellCompletion(w)
	}
	return NoShell([]string{shell})
}
