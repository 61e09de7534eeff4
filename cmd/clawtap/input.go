package main

import "github.com/spf13/cobra"

// inputArg returns the capture path from args: the one given, or "-" (stdin).
func inputArg(args []string) string {
	if len(args) == 0 {
		return "-"
	}
	return args[0]
}

// captureArgs completes a capture argument with capture file names.
func captureArgs(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return []string{"zst", "jsonl", "ndjson", "json"}, cobra.ShellCompDirectiveFilterFileExt
}
