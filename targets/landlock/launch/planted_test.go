//go:build linux

package launch_test

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlantedLinks: what a command leaves in its writable roots must not
// widen what a later run grants (red team 19). A symbolic link there may
// be the command's: a protected name or a read rule through one grants
// nothing the profile does not grant at its target already, and a listed
// Unix socket through one, or replaced by one during the run, is not
// reachable. Both users.
func TestPlantedLinks(t *testing.T) {
	for _, u := range users {
		t.Run(u.name, func(t *testing.T) {
			f := newFixture(t, u)
			run := func(artifact, cwd, script string) result {
				t.Helper()
				r := f.sbx(t, "run", "--json", "--artifact", filepath.Join(bin, artifact+".json"), "--cwd", cwd, "--", "/bin/sh", "-c", script)
				if r.SbxError != "" {
					t.Fatalf("sbx failed: %s", r.SbxError)
				}
				return r
			}
			plant := func(target, link string) {
				t.Helper()
				if err := os.Symlink(target, link); err != nil {
					t.Fatal(err)
				}
				os.Lchown(link, u.uid, u.uid)
			}
			// A protected .git that is a link to ~/.ssh, which t-vendor
			// (reading the system's programs and {cwd}/vendor) does not
			// make readable.
			plant(f.home+"/.ssh", f.nogit+"/.git")
			r := run("t-vendor", f.nogit, "cat .git/id_rsa 2>&1; ls .git 2>&1; echo done")
			if !strings.HasSuffix(r.Stdout, "done\n") {
				t.Fatalf("the shell did not run: %q %q", r.Stdout, r.Stderr)
			}
			if strings.Contains(r.Stdout, "secret") || strings.Contains(r.Stdout, "id_rsa\n") {
				t.Errorf("ESCAPE: ~/.ssh read through a protected .git link in the workspace: %q", r.Stdout)
			}
			// A read rule ({cwd}/vendor) that is a link to the home
			// directory, which t-vendor does not make readable.
			plant(f.home, f.ws+"/vendor")
			if r := run("t-vendor", f.ws, "cat vendor/readme 2>&1"); strings.Contains(r.Stdout, "home") && !strings.Contains(r.Stdout, "denied") {
				t.Errorf("ESCAPE: the home directory read through a read rule's link in the workspace: %q", r.Stdout)
			}
			// The carve-out still narrows: vendor itself stays read-only
			// where it is a real directory (control).
			os.Remove(f.ws + "/vendor")
			if err := os.Mkdir(f.ws+"/vendor", 0o755); err != nil {
				t.Fatal(err)
			}
			os.Chown(f.ws+"/vendor", u.uid, u.uid)
			if r := run("t-vendor", f.ws, "touch vendor/x 2>/dev/null && echo written; touch y && echo ok"); r.Stdout != "ok\n" {
				t.Errorf("control: vendor should be read-only and the workspace writable: %q %q", r.Stdout, r.Stderr)
			}

			// A listed socket in the workspace, and an unlisted one.
			listen := func(p, answer string) {
				t.Helper()
				ln, err := net.Listen("unix", p)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { ln.Close() })
				os.Chmod(p, 0o777)
				go func() {
					for {
						c, err := ln.Accept()
						if err != nil {
							return
						}
						c.Write([]byte(answer))
						c.Close()
					}
				}()
			}
			other := f.outside + "/other.sock"
			listen(f.ws+"/app.sock", "LISTED")
			listen(other, "OTHER")
			probe := filepath.Join(bin, "probe")
			r = run("t-sockws", f.ws, probe+" unix-connect app.sock; rm app.sock && ln -s "+other+" app.sock && "+
				probe+" unix-connect app.sock; "+probe+" unix-connect "+other)
			if r.Stdout != "ok\nEACCES\nEACCES\n" {
				t.Errorf("listed socket replaced by a link during the run: %q %q, want ok, then EACCES twice", r.Stdout, r.Stderr)
			}
			// The next run: app.sock is the link the command planted.
			r = run("t-sockws", f.ws, probe+" unix-connect app.sock; "+probe+" unix-connect "+other)
			if r.Stdout != "EACCES\nEACCES\n" {
				t.Errorf("ESCAPE: a listed socket that is a link planted in the workspace reaches an unlisted socket: %q %q", r.Stdout, r.Stderr)
			}
			if !strings.Contains(string(r.Sandbox), "which it could have put there") {
				t.Errorf("the result does not report the socket left out: %s", r.Sandbox)
			}
		})
	}
}
