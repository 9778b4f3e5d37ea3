package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/sbx-dev/sbx/builtin"
)

const profilesUsage = `Usage: sbc profiles [--json] [NAME]

List the built-in profiles, which every profile file can extend and sbx
can run by name. With NAME, print that profile's HCL source.

Examples:
  sbc profiles
  sbc profiles --json
  sbc profiles workspace
`

func profilesCommand() *command {
	return &command{
		name:    "profiles",
		summary: "List the built-in profiles, or show one",
		usage:   profilesUsage,
		setup: func(e *env, fs *flag.FlagSet) func([]string) int {
			asJSON := fs.Bool("json", false, "print the list as JSON")
			return func(args []string) int {
				switch len(args) {
				case 0:
					return listProfiles(e, *asJSON)
				case 1:
					src, err := builtin.Source(args[0])
					if err != nil {
						return usageError(e, "profiles", "%v", err)
					}
					e.stdout.Write(src)
					return exitOK
				}
				return usageError(e, "profiles", "too many arguments")
			}
		},
	}
}

// profileInfo is one row of `sbc profiles --json`.
type profileInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Network     string `json:"network"`
	Unsandboxed bool   `json:"unsandboxed"`
	Digest      string `json:"ir_digest"`
}

func listProfiles(e *env, asJSON bool) int {
	var infos []profileInfo
	for _, name := range builtin.Names() {
		a, p, err := builtin.Load(name)
		if err != nil {
			fmt.Fprintf(e.stderr, "sbc profiles: %v\n", err)
			return exitUsage
		}
		infos = append(infos, profileInfo{Name: name, Description: p.Description, Network: string(p.Network.Mode), Unsandboxed: p.Unsandboxed, Digest: a.Digest})
	}
	if asJSON {
		data, err := json.MarshalIndent(infos, "", "  ")
		if err != nil {
			fmt.Fprintf(e.stderr, "sbc profiles: %v\n", err)
			return exitUsage
		}
		fmt.Fprintf(e.stdout, "%s\n", data)
		return exitOK
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tNETWORK\tDESCRIPTION")
	for _, in := range infos {
		desc := in.Description
		if in.Unsandboxed && !strings.Contains(desc, "NO SANDBOX") {
			desc = "NO SANDBOX: " + desc
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", in.Name, in.Network, desc)
	}
	tw.Flush()
	return exitOK
}
