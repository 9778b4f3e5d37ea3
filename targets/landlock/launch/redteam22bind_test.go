//go:build linux && amd64

package launch_test

// Red team 22 (binding): how a profile's symbolic paths are bound to real
// ones at run time (landlock.DefaultBindings, ir.Profile.Bind, resolveRules,
// gitdirTargets, expandGlobs, CheckWritableRoots), and whether what runs
// matches what the profile and `sbx run --dry-run` say. Profiles are
// compiled by the real sbc (rt17pCompile) and run by the real sbx (built by
// TestMain), as root and as uid 65534.
//
// Found (each reproduced by hand on Linux 6.18, ABI 7; each test failed
// before its fix in session 19 and passes since):
//
//   - GlobAnchorMeta: an anchored deny_glob ("{cwd}/**/*.pem", the
//     README's "{home}/**/id_*") is bound by pasting the anchor's path into
//     the pattern unescaped (ir.bindGlob). A workspace or home directory
//     whose path holds a glob character ("p[1]", "a*b", "x?") turns into a
//     pattern that no longer matches its own directory: "[1]" is a class
//     matching "1". No match is found, nothing is masked, the dry run says
//     "0 existing matches masked", and the command reads every key.
//   - CwdSlash: the refusal of a writable working directory that is "/"
//     (README, --cwd and How it works: "a service started in / would
//     otherwise run the workspace profile with every file writable") is
//     decided in CheckWritableRoots only for anchors that have a
//     read-write MOUNT of their own. A write rule on "/" has none (the
//     base read-only view is simply left out), so a profile without
//     protected names (`extends = "read-only"` + `write = [cwd]`) run with
//     --cwd / (or started in / without --cwd) makes the whole file system
//     writable, /etc included for root. The artifact check does not stop it
//     when the profile keeps its own artifact read-only, as sbx's error
//     message advises.
//   - TmpdirAtCarveOut: same cause. $TMPDIR exactly at a read-only
//     carve-out of the workspace ("TMPDIR at a read-only folder of the
//     workspace", refused per the README) is accepted by a profile without
//     protected names: the write rule wins at equal specificity, no mount
//     is needed, so the refusal is never evaluated, and the carve-out is
//     writable. The same profile with `protect` refuses it.
//   - NestedLinkRetarget: a read, deny or protect rule on a symbolic link
//     in a writable directory pins the link (pin-link) and applies to its
//     target, but links INSIDE the target's path (".git -> meta/repo" with
//     "meta -> store") are resolved once and not pinned. The command
//     re-points "meta" at a directory of its own: the read-only
//     "vendor/lib" becomes writable, a denied "secret/" gets an
//     authorized_keys, and the protected ".git" leads to a config the
//     command wrote; host git then runs its core.fsmonitor. With the
//     workspace profile and `deny = ["~/.ssh"]` (testdata/profiles/dev.hcl)
//     and a stow-like ~/.ssh -> WS/dotfiles/ssh, WS/dotfiles a link, the
//     read-only home's denied ~/.ssh gets the command's authorized_keys.
//     The same for a git link file "gitdir: meta/repo" (gitdirTargets uses
//     EvalSymlinks and pins nothing).
//   - TmpdirInGitdirTarget: the refusal of a $TMPDIR inside a protected
//     name ("TMPDIR=repo/.git") compares path components with the
//     protected names only. The repository a protected ".git" file names
//     ("gitdir: store/r.git", a bare or separate git directory), protected
//     by gitdirTargets, is not among them, nor among the carve-outs
//     CheckWritableRoots knows (taken from the plan's rules, not the bound
//     ones): TMPDIR there makes the repository's config and hooks writable
//     under the built-in workspace profile.
//   - TmpdirInDeniedLinkTarget: same cause. `deny = [path(cwd, "secret")]`
//     with secret a link to a directory elsewhere masks the link's target
//     (README: "a deny on a link masks what it points to"); CheckWritableRoots
//     knows the deny by the link's path only, so $TMPDIR below the target
//     (spelled either way: it is canonicalised) is accepted, carried through
//     the mask, and the denied files there are read and written.
//   - GlobScanLongPath: the deny_glob scan (expandGlobs) opens each
//     directory by its absolute path; one whose path is longer than
//     PATH_MAX fails with ENAMETOOLONG, which the scan passes over silently
//     (only EACCES masks a directory whole), so a match below it is neither
//     masked nor counted, the rule stays "supplementary" and strict mode
//     runs it; the command reads the match by a relative path. (A deny rule
//     or a match whose own path is too long fails closed: the launcher's
//     check that a missing path is still missing refuses the run.) Needs a
//     match deeper than PATH_MAX bytes within max_depth of a readable root.
//
// Fixed: ir.EscapeGlob escapes the anchor's path in a bound glob and
// globLiteralDir reads it back (GlobAnchorMeta); CheckWritableRoots counts
// an anchor writable when a write rule on the bare anchor grants it, and
// takes the carve-outs from the bound rules (links and git link files
// resolved) (CwdSlash, TmpdirAtCarveOut, TmpdirInGitdirTarget,
// TmpdirInDeniedLinkTarget); every link followed inside a rule's or a git
// link file's target is pinned (NestedLinkRetarget); a directory the scan
// cannot list for any reason but its absence is masked whole
// (GlobScanLongPath: the launch then fails closed on the too-long path).
//
// Held (passing tests): a $TMPDIR inside a directory a deny_glob matches
// stays denied (HeldGlobOverTmpdir); the directories above a deny_glob match
// in a writable root are pinned, so the match cannot be carried to another
// path (HeldGlobMatchParentPinned); a $TMPDIR one level below a carve-out or
// a deny is refused whatever the profile's protected names (part of
// TmpdirAtCarveOut's controls). Not testable here: case-insensitive
// directories (this kernel's ext4 and tmpfs have no casefold support), where
// CheckWritableRoots' name comparisons (".GIT/hooks") may miss as well.
// Checked by hand and held (no test here): edited artifacts (an unknown or
// duplicated envelope field, "IR" for "ir", a target whose digest does not
// match, another Landlock plan format: 125; an edited "compiler" field, an
// extra target with a matching digest, and no targets at all run the plan
// compiled from the IR, as documented); a nested write rule whose path
// does not exist (creation in the parent is taken away, restrictive);
// denied and protected paths longer than PATH_MAX (refused at the start).
//
//	go test -count=1 -run TestRedTeam22Bind -v ./targets/landlock/launch

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// rt22Read returns the content of p ("<missing>" when it cannot be read).
func rt22Read(p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		return "<missing>"
	}
	return string(b)
}

// TestRedTeam22BindGlobAnchorMeta: was a HOLE (both users), fixed. The profile reads /,
// writes {cwd} and denies "{cwd}/**/*.pem" and, as in the README and
// testdata/profiles/team.hcl, { pattern = "{home}/**/id_*", max_depth = 4 }.
// Two identical trees: one below a directory "plain", one below "p[1]".
//
// Reproducer:
//
//	mkdir -p 'p[1]/ws' 'p[1]/home/.ssh'; echo k > 'p[1]/ws/k.pem'; echo k > 'p[1]/home/.ssh/id_rsa'
//	HOME=$PWD/'p[1]'/home sbx run --artifact g.sbx.json --cwd 'p[1]/ws' -- sh -c 'cat k.pem ~/.ssh/id_rsa'
//
// Control: under "plain" every key is unreadable (EACCES), and without the
// sandbox each reads. Must hold: the same under "p[1]".
func TestRedTeam22BindGlobAnchorMeta(t *testing.T) {
	const src = `
profile "rt22glob" {
  filesystem {
    read      = [root]
    write     = [cwd]
    deny_glob = ["{cwd}/**/*.pem", { pattern = "{home}/**/id_*", max_depth = 4 }]
  }
}
`
	art, _ := rt17pCompile(t, src, "rt22glob")
	const script = "cat k.pem; echo pem=$?; cat sub/deep/k.pem; echo deep=$?; cat \"$HOME/.ssh/id_rsa\"; echo id=$?; cat ok.txt"
	asUser(t, func(t *testing.T, u user) {
		for _, dir := range []string{"plain", "p[1]"} {
			t.Run(strings.Trim(dir, "[]"), func(t *testing.T) {
				base := rt17pTree(t, u, map[string]string{
					dir + "/ws/k.pem":          "SECRET-PEM\n",
					dir + "/ws/sub/deep/k.pem": "SECRET-DEEP\n",
					dir + "/ws/ok.txt":         "OK\n",
					dir + "/home/.ssh/id_rsa":  "SECRET-KEY\n",
				}, nil, nil)
				ws, home := filepath.Join(base, dir, "ws"), filepath.Join(base, dir, "home")
				if out := rt17pUnsandboxed(u, ws, "HOME="+home+"; export HOME; "+script); strings.Count(out, "SECRET") != 3 {
					t.Fatalf("control (no sandbox): %q", out)
				}
				r := rt17pRun(t, u, art, home, ws, script, nil)
				t.Logf("%s: exit %d %q %q", dir, r.ExitCode, r.Stdout, r.Stderr)
				if r.SbxError != "" {
					t.Fatalf("sbx: %s", r.SbxError)
				}
				if !strings.Contains(r.Stdout, "OK") {
					t.Errorf("ok.txt not readable: %q", r.Stdout)
				}
				for _, w := range []string{"pem=1", "deep=1", "id=1"} {
					if !strings.Contains(r.Stdout, w) {
						t.Errorf("want %s (EACCES)", w)
					}
				}
				if strings.Contains(r.Stdout, "SECRET") {
					t.Errorf("HOLE: a deny_glob match below %s is readable (the anchor's path was pasted into the pattern unescaped): %q", dir, r.Stdout)
				}
				if n := strings.Count(r.Stderr, "Permission denied"); n != 3 {
					t.Errorf("want 3 EACCES, got %d: %q", n, r.Stderr)
				}
			})
		}
	})
}

// TestRedTeam22BindCwdSlash: was a HOLE (both users), fixed. A profile without protected
// names that writes {cwd} (`extends = "read-only"`, `write = [cwd]`) and,
// as sbx's own refusal of writable artifacts advises, keeps its artifact
// read-only with a read rule on the artifact's directory. Run with --cwd /
// and, as a service would be, from / without --cwd. The command appends to
// a file of the fixture's outside tree (any file of the machine the user
// may write: /etc/crontab for root).
//
// Reproducer (as root, /var/tmp/a holding the artifact):
//
//	cd / && sbx run --artifact /var/tmp/a/p.sbx.json -- sh -c 'echo evil >> /etc/crontab'
//
// Control: the built-in workspace profile (which has protected names) is
// refused with --cwd /. Must hold: 125, "would make / writable", the file
// unchanged.
func TestRedTeam22BindCwdSlash(t *testing.T) {
	src := `
profile "rt22slash" {
  extends = "read-only"
  filesystem {
    read  = ["` + bin + `"]
    write = [cwd]
  }
}
`
	art, _ := rt17pCompile(t, src, "rt22slash")
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		target := f.outside + "/file"
		script := "echo pwned >> " + target + "; echo rc=$?"
		if r := rtRun(t, rtOpts{u: u, env: []string{"HOME=" + f.home}, args: []string{"--profile", "workspace", "--cwd", "/", "--", "/bin/true"}}); r.ExitCode != 125 || !strings.Contains(r.SbxError, "would make / writable") {
			t.Fatalf("control: workspace --cwd /: exit %d %q", r.ExitCode, r.SbxError)
		}
		check := func(t *testing.T, how string, r rtResult) {
			t.Logf("%s: exit %d %q %q sbx_error %q", how, r.ExitCode, r.Stdout, r.Stderr, r.SbxError)
			if r.ExitCode != 125 || !strings.Contains(r.SbxError, "would make / writable") {
				t.Errorf("HOLE: %s: exit %d (sbx_error %q), want 125 refusing a writable / (the whole file system was writable: %q)", how, r.ExitCode, r.SbxError, r.Stdout)
			}
			if got := rt22Read(target); got != "out" {
				t.Errorf("HOLE: %s wrote %s outside the workspace: %q", how, target, got)
				os.WriteFile(target, []byte("out"), 0o644)
			}
		}
		t.Run("cwd-flag", func(t *testing.T) {
			check(t, "--cwd /", rtRun(t, rtOpts{u: u, env: []string{"HOME=" + f.home}, args: []string{"--artifact", art, "--cwd", "/", "--", "/bin/sh", "-c", script}}))
		})
		t.Run("started-in-slash", func(t *testing.T) {
			cmd := rtCmd(rtOpts{u: u, env: []string{"HOME=" + f.home}, args: []string{"--artifact", art, "--", "/bin/sh", "-c", script}})
			cmd.Dir = "/"
			out, err := cmd.Output()
			var r rtResult
			if jerr := json.Unmarshal(out, &r); jerr != nil {
				t.Fatalf("%v: %q %v", jerr, out, err)
			}
			check(t, "started in / without --cwd", r)
		})
	})
}

// TestRedTeam22BindTmpdirAtCarveOut: was a HOLE (both users), fixed. A profile that
// reads / and {cwd}/vendor (a read-only carve-out), writes {cwd} and
// {tmpdir}, and denies {cwd}/secret; rt22cv has no protected names,
// rt22cvp is the same with protect = [".git"].
//
// Reproducer:
//
//	TMPDIR=$PWD/ws/vendor sbx run --artifact cv.sbx.json --cwd ws -- sh -c 'echo evil >> vendor/lib'
//
// Controls: rt22cvp refuses TMPDIR=ws/vendor; both refuse TMPDIR one level
// below the carve-out and below the deny (held); with TMPDIR elsewhere
// vendor/lib is read-only (EROFS). Must hold: rt22cv refuses
// TMPDIR=ws/vendor (125) and vendor/lib is unchanged.
func TestRedTeam22BindTmpdirAtCarveOut(t *testing.T) {
	const src = `
profile "rt22cv" {
  filesystem {
    read  = [root, path(cwd, "vendor")]
    write = [cwd, tmpdir]
    deny  = [path(cwd, "secret")]
  }
}
profile "rt22cvp" {
  filesystem {
    read    = [root, path(cwd, "vendor")]
    write   = [cwd, tmpdir]
    deny    = [path(cwd, "secret")]
    protect = [".git"]
  }
}
`
	cv, _ := rt17pCompile(t, src, "rt22cv")
	cvp := filepath.Join(filepath.Dir(cv), "rt22cvp.sbx.json")
	const script = "echo evil >> vendor/lib; echo w=$?"
	asUser(t, func(t *testing.T, u user) {
		base := rt17pTree(t, u, map[string]string{"ws/vendor/lib": "V", "ws/vendor/sub/x": "x", "ws/secret/sub/s": "S", "home/f": "h", "tmp/f": "t"}, nil, nil)
		ws, home := base+"/ws", base+"/home"
		run := func(art, tmpdir string) rtResult {
			return rt17pRun(t, u, art, home, ws, script, nil, "TMPDIR="+tmpdir)
		}
		// Controls.
		if r := run(cv, base+"/tmp"); r.SbxError != "" || !strings.Contains(r.Stdout, "w=2") || !strings.Contains(r.Stderr, "Read-only file system") {
			t.Fatalf("control: TMPDIR elsewhere: %q %q %q", r.Stdout, r.Stderr, r.SbxError)
		}
		for _, c := range []struct{ art, tmp string }{{cvp, ws + "/vendor"}, {cv, ws + "/vendor/sub"}, {cv, ws + "/secret/sub"}, {cvp, ws + "/vendor/sub"}} {
			if r := run(c.art, c.tmp); r.ExitCode != 125 || !strings.Contains(r.SbxError, "making it writable would undo that") {
				t.Errorf("control (held): %s TMPDIR=%s: exit %d %q", filepath.Base(c.art), c.tmp, r.ExitCode, r.SbxError)
			}
		}
		if got := rt22Read(ws + "/vendor/lib"); got != "V" {
			t.Fatalf("controls changed vendor/lib: %q", got)
		}
		r := run(cv, ws+"/vendor")
		t.Logf("rt22cv TMPDIR=ws/vendor: exit %d %q %q %q", r.ExitCode, r.Stdout, r.Stderr, r.SbxError)
		if r.ExitCode != 125 || !strings.Contains(r.SbxError, "read-only") {
			t.Errorf("HOLE: TMPDIR at the read-only carve-out %s/vendor was accepted (exit %d, %q), want 125 as with protect", ws, r.ExitCode, r.SbxError)
		}
		if got := rt22Read(ws + "/vendor/lib"); got != "V" {
			t.Errorf("HOLE: the read-only carve-out vendor/lib was written: %q", got)
		}
	})
}

// TestRedTeam22BindNestedLinkRetarget: was a HOLE (both users), fixed. A profile that
// reads / and {cwd}/vendor, writes {cwd}, denies {cwd}/secret and protects
// .git, in a workspace where
//
//	vendor -> m1/v    secret -> m1/s    .git -> m1/g    m1 -> store
//
// (store/v/lib, store/s/key, store/g/config). The three rules' links are
// pinned and their targets in store/ are read-only, masked and read-only;
// m1, a link inside each target's path, is not pinned. The command
// re-points m1 at a directory of its own. "home-ssh": the workspace
// profile plus `deny = ["~/.ssh"]` (as testdata/profiles/dev.hcl), with
// ~/.ssh -> WS/m/ssh and WS/m -> store: the command gives the denied
// ~/.ssh an authorized_keys. "gitfile":
// the built-in workspace profile with .git a git link file "gitdir:
// m2/repo", m2 -> store2 (store2/repo/config).
//
// Reproducer (host git then runs the fsmonitor):
//
//	ln -s meta/repo ws/.git; ln -s store ws/meta    # ws/store/repo a git directory
//	sbx run --profile workspace --cwd ws -- sh -c 'cp -r store/repo r; mkdir f; mv r f/repo;
//	    printf "[core]\n\tfsmonitor = \"touch /tmp/pwned; false\"\n" >> f/repo/config; rm meta; ln -s f meta'
//	git -C ws status
//
// Control (held, in the same run): before re-pointing, vendor/lib and
// .git/config are EROFS and secret/key is EACCES. Must hold after the run,
// on the host: ws/vendor/lib, ws/.git/config and ws/m2/repo/config as they
// were, no ws/secret/authorized_keys.
func TestRedTeam22BindNestedLinkRetarget(t *testing.T) {
	const src = `
profile "rt22lnk" {
  filesystem {
    read    = [root, path(cwd, "vendor")]
    write   = [cwd]
    deny    = [path(cwd, "secret")]
    protect = [".git"]
  }
}
`
	art, _ := rt17pCompile(t, src, "rt22lnk")
	sshArt, _ := rt17pCompile(t, `
profile "rt22ssh" {
  extends = "workspace"
  filesystem {
    deny = ["~/.ssh"]
  }
}
`, "rt22ssh")
	asUser(t, func(t *testing.T, u user) {
		t.Run("rules", func(t *testing.T) {
			base := rt17pTree(t, u, map[string]string{"ws/store/v/lib": "V", "ws/store/s/key": "S", "ws/store/g/config": "[core]\n", "home/f": "h"}, nil,
				map[string]string{"ws/vendor": "m1/v", "ws/secret": "m1/s", "ws/.git": "m1/g", "ws/m1": "store"})
			ws := base + "/ws"
			script := "echo y >> vendor/lib; echo ctl1=$?; cat secret/key; echo ctl2=$?; echo y >> .git/config; echo ctl3=$?\n" +
				"mkdir -p f/v f/s f/g && rm m1 && ln -s f m1; echo relink=$?\n" +
				"echo PLANT > vendor/lib; echo PLANT > secret/authorized_keys; printf '[core]\\n\\tfsmonitor = \"touch pwned; false\"\\n' > .git/config; true"
			r := rt17pRun(t, u, art, base+"/home", ws, script, nil)
			t.Logf("exit %d %q %q %q", r.ExitCode, r.Stdout, r.Stderr, r.SbxError)
			if r.SbxError != "" {
				t.Fatalf("sbx: %s", r.SbxError)
			}
			for _, w := range []string{"ctl1=2", "ctl2=1", "ctl3=2"} {
				if !strings.Contains(r.Stdout, w) {
					t.Errorf("control: want %s in %q", w, r.Stdout)
				}
			}
			if got := rt22Read(ws + "/vendor/lib"); got != "V" {
				t.Errorf("HOLE: the read-only %s/vendor/lib reads %q after the run (m1 re-pointed)", ws, got)
			}
			if fileExists(ws + "/secret/authorized_keys") {
				t.Errorf("HOLE: the denied %s/secret holds the command's authorized_keys", ws)
			}
			if got := rt22Read(ws + "/.git/config"); got != "[core]\n" {
				t.Errorf("HOLE: the protected %s/.git leads to the command's config: %q", ws, got)
			}
		})
		t.Run("home-ssh", func(t *testing.T) {
			// A profile like testdata/profiles/dev.hcl: the workspace and
			// `deny = ["~/.ssh"]`, with ~/.ssh a link into the workspace
			// through a link there (GNU stow's ~/.ssh -> dotfiles/ssh, the
			// dotfiles a link to a checkout): the home directory is
			// read-only, yet the command gives ~/.ssh an authorized_keys.
			base := rt17pTree(t, u, map[string]string{"ws/store/ssh/id_rsa": "SECRET-KEY", "home/f": "h"}, nil, map[string]string{"ws/m": "store"})
			ws, home := base+"/ws", base+"/home"
			if err := os.Symlink(ws+"/m/ssh", home+"/.ssh"); err != nil {
				t.Fatal(err)
			}
			os.Lchown(home+"/.ssh", u.uid, u.uid)
			script := "cat ~/.ssh/id_rsa; echo ctl=$?; echo K >> ~/.ssh/authorized_keys; echo ctl2=$?\n" +
				"mkdir -p f/ssh && rm m && ln -s f m; echo relink=$?; echo 'ssh-ed25519 ATTACKER' > ~/.ssh/authorized_keys; true"
			r := rt17pRun(t, u, sshArt, home, ws, script, nil)
			t.Logf("exit %d %q %q %q", r.ExitCode, r.Stdout, r.Stderr, r.SbxError)
			if r.SbxError != "" {
				t.Fatalf("sbx: %s", r.SbxError)
			}
			if !strings.Contains(r.Stdout, "ctl=1") || !strings.Contains(r.Stdout, "ctl2=2") || strings.Contains(r.Stdout, "SECRET") {
				t.Errorf("control: ~/.ssh is not denied before the re-pointing: %q", r.Stdout)
			}
			if fileExists(home + "/.ssh/authorized_keys") {
				t.Errorf("HOLE: the denied ~/.ssh (%s/.ssh) holds the command's authorized_keys: %q", home, rt22Read(home+"/.ssh/authorized_keys"))
			}
		})
		t.Run("gitfile", func(t *testing.T) {
			f := newFixture(t, u)
			base := rt17pTree(t, u, map[string]string{"ws/store2/repo/config": "[core]\n", "ws/.git": "gitdir: m2/repo\n"}, nil, map[string]string{"ws/m2": "store2"})
			ws := base + "/ws"
			script := "echo y >> m2/repo/config; echo ctl=$?\n" +
				"mkdir -p f/repo && printf '[core]\\n\\tfsmonitor = \"touch pwned; false\"\\n' > f/repo/config && rm m2 && ln -s f m2; echo relink=$?"
			r := rtShell(t, f, "workspace", ws, script)
			t.Logf("exit %d %q %q", r.ExitCode, r.Stdout, r.Stderr)
			if !strings.Contains(r.Stdout, "ctl=2") {
				t.Errorf("control: the gitdir's config is not read-only: %q", r.Stdout)
			}
			if got := rt22Read(ws + "/m2/repo/config"); got != "[core]\n" {
				t.Errorf("HOLE: the repository %s/.git names (gitdir: m2/repo) is the command's after the run: config %q", ws, got)
			}
		})
	})
}

// TestRedTeam22BindTmpdirInGitdirTarget: was a HOLE (both users), fixed. Built-in
// workspace profile; ws/.git is a git link file "gitdir: store/r.git"
// (a separate git directory: `git init --separate-git-dir`, or a bare
// repository), which gitdirTargets protects read-only. $TMPDIR at
// ws/store/r.git or its hooks directory.
//
// Reproducer:
//
//	echo 'gitdir: store/r.git' > ws/.git     # ws/store/r.git a git directory
//	TMPDIR=$PWD/ws/store/r.git sbx run --profile workspace --cwd ws -- sh -c 'echo "[core] fsmonitor=..." >> store/r.git/config'
//
// Controls: with TMPDIR elsewhere store/r.git/config is EROFS; with a .git
// directory, TMPDIR=ws/.git is refused. Must hold: 125 for both TMPDIRs,
// config and hooks unchanged.
func TestRedTeam22BindTmpdirInGitdirTarget(t *testing.T) {
	asUser(t, func(t *testing.T, u user) {
		f := newFixture(t, u)
		base := rt17pTree(t, u, map[string]string{"ws/store/r.git/config": "[core]\n", "ws/store/r.git/hooks/README": "h", "ws/.git": "gitdir: store/r.git\n", "tmp/f": "t"}, nil, nil)
		ws := base + "/ws"
		script := "echo PLANT >> store/r.git/config; echo cfg=$?; echo PLANT > store/r.git/hooks/post-checkout; echo hook=$?"
		// Controls.
		if r := rtShell(t, f, "workspace", ws, script, "TMPDIR="+base+"/tmp"); !strings.Contains(r.Stdout, "cfg=2") || !strings.Contains(r.Stdout, "hook=2") {
			t.Fatalf("control: TMPDIR elsewhere: %q %q", r.Stdout, r.Stderr)
		}
		if r := rtRun(t, rtOpts{u: u, env: []string{"HOME=" + f.home, "TMPDIR=" + f.ws + "/.git"}, args: []string{"--profile", "workspace", "--cwd", f.ws, "--", "/bin/true"}}); r.ExitCode != 125 || !strings.Contains(r.SbxError, "protects") {
			t.Fatalf("control: TMPDIR=ws/.git: exit %d %q", r.ExitCode, r.SbxError)
		}
		for _, tmp := range []string{ws + "/store/r.git", ws + "/store/r.git/hooks"} {
			r := rtRun(t, rtOpts{u: u, env: []string{"HOME=" + f.home, "TMPDIR=" + tmp}, args: []string{"--profile", "workspace", "--cwd", ws, "--", "/bin/sh", "-c", script}})
			t.Logf("TMPDIR=%s: exit %d %q %q %q", tmp, r.ExitCode, r.Stdout, r.Stderr, r.SbxError)
			if r.ExitCode != 125 {
				t.Errorf("HOLE: TMPDIR=%s (inside the repository the protected .git names) was accepted: exit %d %q", tmp, r.ExitCode, r.Stdout)
			}
		}
		if got := rt22Read(ws + "/store/r.git/config"); got != "[core]\n" {
			t.Errorf("HOLE: the protected repository's config was written: %q", got)
		}
		if fileExists(ws + "/store/r.git/hooks/post-checkout") {
			t.Errorf("HOLE: a hook was planted in the protected repository")
		}
	})
}

// rt22Deep makes, below base, the directories names (nested, each in the
// one before) and in the last one the file "k.pem" holding content,
// through directory descriptors (the absolute paths may be longer than
// PATH_MAX), owned by u. It returns nothing: the caller knows the names.
func rt22Deep(t *testing.T, u user, base string, names []string, content string) {
	t.Helper()
	fd, err := unix.Open(base, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if err := unix.Mkdirat(fd, n, 0o755); err != nil && err != unix.EEXIST {
			t.Fatalf("mkdirat %s: %v", n, err)
		}
		unix.Fchownat(fd, n, u.uid, u.uid, unix.AT_SYMLINK_NOFOLLOW)
		nfd, err := unix.Openat(fd, n, unix.O_RDONLY|unix.O_DIRECTORY, 0)
		unix.Close(fd)
		if err != nil {
			t.Fatal(err)
		}
		fd = nfd
	}
	defer unix.Close(fd)
	ffd, err := unix.Openat(fd, "k.pem", unix.O_WRONLY|unix.O_CREAT|unix.O_TRUNC, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	unix.Write(ffd, []byte(content))
	unix.Fchown(ffd, u.uid, u.uid)
	unix.Close(ffd)
}

// TestRedTeam22BindGlobScanLongPath: was a HOLE (both users), fixed. The profile reads
// /, writes {cwd} and denies "*.pem" (anywhere). The workspace is 15
// directories of 250-byte names below /var/tmp (about 3,800 bytes, a
// valid working directory); ws/a.pem is short, ws/Z/Z/k.pem (Z a 250-byte
// name) lies at depth 3, in a directory whose absolute path is about
// 4,300 bytes.
//
// Reproducer: any tree like this one, then
//
//	sbx run --artifact p.sbx.json --cwd "$WS" -- sh -c 'cat Z*/Z*/k.pem'
//
// Control: ws/a.pem is EACCES; without the sandbox both read. Must hold:
// Z/Z/k.pem is EACCES, or the run is refused (a scan that could not list
// a directory is not the complete expansion the rule claims).
func TestRedTeam22BindGlobScanLongPath(t *testing.T) {
	const src = `
profile "rt22long" {
  filesystem {
    read      = [root]
    write     = [cwd]
    deny_glob = ["*.pem"]
  }
}
`
	art, _ := rt17pCompile(t, src, "rt22long")
	asUser(t, func(t *testing.T, u user) {
		base, err := os.MkdirTemp("/var/tmp", "rt22l")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(base) })
		os.Chmod(base, 0o755)
		os.Chown(base, u.uid, u.uid)
		var names []string
		ws := base
		for i := 0; i < 15; i++ {
			n := strings.Repeat(string(rune('a'+i)), 250)
			names = append(names, n)
			ws += "/" + n
		}
		z := strings.Repeat("Z", 250)
		rt22Deep(t, u, base, names, "SECRET-SHORT\n")
		if err := os.Rename(ws+"/k.pem", ws+"/a.pem"); err != nil {
			t.Fatal(err)
		}
		rt22Deep(t, u, base, append(names, z, z), "SECRET-DEEP\n")
		t.Logf("workspace %d bytes, deep directory %d bytes", len(ws), len(ws)+2*251)
		const script = "cat a.pem; echo short=$?; cat Z*/Z*/k.pem; echo deep=$?"
		if out := rt17pUnsandboxed(u, ws, script); !strings.Contains(out, "SECRET-SHORT") || !strings.Contains(out, "SECRET-DEEP") {
			t.Fatalf("control (no sandbox): %q", out)
		}
		r := rt17pRun(t, u, art, base, ws, script, nil)
		t.Logf("exit %d %q %q %q", r.ExitCode, r.Stdout, r.Stderr, r.SbxError)
		if r.ExitCode == 125 {
			return // refused: fails closed
		}
		if !strings.Contains(r.Stdout, "short=1") || strings.Contains(r.Stdout, "SECRET-SHORT") {
			t.Fatalf("control: ws/a.pem not denied: %q", r.Stdout)
		}
		if strings.Contains(r.Stdout, "SECRET-DEEP") || !strings.Contains(r.Stdout, "deep=1") {
			t.Errorf("HOLE: a deny_glob match below a directory longer than PATH_MAX is readable (the scan skipped it silently): %q", r.Stdout)
		}
	})
}

// TestRedTeam22BindTmpdirInDeniedLinkTarget: was a HOLE (both users), fixed. A profile
// that reads /, writes {cwd} and {tmpdir}, protects .git and denies
// {cwd}/secret, where ws/secret is a link to out/s (outside the workspace;
// out/s/key, out/s/sub/k2). $TMPDIR=ws/secret/sub.
//
// Reproducer:
//
//	ln -s $PWD/out/s ws/secret
//	TMPDIR=$PWD/ws/secret/sub sbx run --artifact p.sbx.json --cwd ws -- sh -c 'cat $TMPDIR/k2'
//
// Control: with TMPDIR elsewhere out/s/sub/k2 and ws/secret/key are EACCES;
// a real directory ws/secret2 denied the same way with TMPDIR=ws/secret2/sub
// is refused. Must hold: 125 (TMPDIR lies inside a path the profile makes
// unreadable), out/s/sub unchanged.
func TestRedTeam22BindTmpdirInDeniedLinkTarget(t *testing.T) {
	const src = `
profile "rt22dl" {
  filesystem {
    read    = [root]
    write   = [cwd, tmpdir]
    deny    = [path(cwd, "secret"), path(cwd, "secret2")]
    protect = [".git"]
  }
}
`
	art, _ := rt17pCompile(t, src, "rt22dl")
	asUser(t, func(t *testing.T, u user) {
		base := rt17pTree(t, u, map[string]string{"out/s/key": "SECRET-KEY", "out/s/sub/k2": "SECRET-K2", "ws/secret2/sub/x": "SECRET-X", "tmp/f": "t", "home/f": "h"}, nil, nil)
		ws := base + "/ws"
		if err := os.Symlink(base+"/out/s", ws+"/secret"); err != nil {
			t.Fatal(err)
		}
		os.Lchown(ws+"/secret", u.uid, u.uid)
		script := "cat secret/key; cat secret/sub/k2; echo r=$?; echo new > secret/sub/new; echo w=$?"
		if r := rt17pRun(t, u, art, base+"/home", ws, script, nil, "TMPDIR="+base+"/tmp"); r.SbxError != "" || strings.Contains(r.Stdout, "SECRET") || !strings.Contains(r.Stdout, "r=1") {
			t.Fatalf("control: TMPDIR elsewhere: %q %q %q", r.Stdout, r.Stderr, r.SbxError)
		}
		if r := rt17pRun(t, u, art, base+"/home", ws, "true", nil, "TMPDIR="+ws+"/secret2/sub"); r.ExitCode != 125 || !strings.Contains(r.SbxError, "unreadable") {
			t.Fatalf("control: TMPDIR=ws/secret2/sub: exit %d %q", r.ExitCode, r.SbxError)
		}
		r := rt17pRun(t, u, art, base+"/home", ws, script, nil, "TMPDIR="+ws+"/secret/sub")
		t.Logf("TMPDIR=ws/secret/sub: exit %d %q %q %q", r.ExitCode, r.Stdout, r.Stderr, r.SbxError)
		if r.ExitCode != 125 || !strings.Contains(r.SbxError, "unreadable") {
			t.Errorf("HOLE: TMPDIR inside the target of the denied link ws/secret was accepted: exit %d %q", r.ExitCode, r.Stdout)
		}
		if strings.Contains(r.Stdout, "SECRET") || fileExists(base+"/out/s/sub/new") {
			t.Errorf("HOLE: the denied %s/out/s/sub was read or written", base)
		}
	})
}

// TestRedTeam22BindHeldGlobOverTmpdir: held. A deny_glob "**/secrets"
// (anywhere) with $TMPDIR inside a matching directory (ws/secrets/tmp), and
// an anchored "{cwd}/**/*.key" matching a directory above $TMPDIR
// (ws/d.key/t): nothing reopens a glob-denied path (README), and
// CheckWritableRoots does not look at globs, so the layout must keep
// them denied. Must hold: reading, listing and creating there fail (EACCES).
func TestRedTeam22BindHeldGlobOverTmpdir(t *testing.T) {
	const src = `
profile "rt22gt" {
  filesystem {
    read      = [root]
    write     = [cwd, tmpdir]
    deny_glob = ["**/secrets", "{cwd}/**/*.key"]
    protect   = [".git"]
  }
}
`
	art, _ := rt17pCompile(t, src, "rt22gt")
	asUser(t, func(t *testing.T, u user) {
		base := rt17pTree(t, u, map[string]string{"ws/secrets/a": "SECRET-A", "ws/secrets/tmp/b": "SECRET-B", "ws/d.key/t/x": "SECRET-X", "home/f": "h"}, nil, nil)
		ws := base + "/ws"
		for _, c := range []struct{ tmp, read string }{{ws + "/secrets/tmp", "secrets/a secrets/tmp/b"}, {ws + "/d.key/t", "d.key/t/x"}} {
			r := rt17pRun(t, u, art, base+"/home", ws, "cat "+c.read+"; echo new > \"$TMPDIR/c\"; echo w=$?; ls \"$TMPDIR\"; echo l=$?", nil, "TMPDIR="+c.tmp)
			t.Logf("TMPDIR=%s: exit %d %q %q %q", c.tmp, r.ExitCode, r.Stdout, r.Stderr, r.SbxError)
			if r.SbxError == "" && (strings.Contains(r.Stdout, "SECRET") || strings.Contains(r.Stdout, "w=0") || strings.Contains(r.Stdout, "l=0")) {
				t.Errorf("TMPDIR=%s reopened a glob-denied directory: %q", c.tmp, r.Stdout)
			}
		}
		if fileExists(ws+"/secrets/tmp/c") || fileExists(ws+"/d.key/t/c") {
			t.Errorf("a file was created in a glob-denied directory")
		}
	})
}

// TestRedTeam22BindHeldGlobMatchParentPinned: held. A deny_glob match's
// mask sits on the match's dentry; renaming a directory above it in the
// workspace would carry the match to a path the next binding scans again,
// but the path the mask was bound to would be free for the command's own
// file. The directories above the match are pinned: `mv a b` fails with
// EBUSY, and the key stays unreadable.
func TestRedTeam22BindHeldGlobMatchParentPinned(t *testing.T) {
	const src = `
profile "rt22gp" {
  filesystem {
    read      = [root]
    write     = [cwd]
    deny_glob = ["{cwd}/**/*.pem"]
  }
}
`
	art, _ := rt17pCompile(t, src, "rt22gp")
	asUser(t, func(t *testing.T, u user) {
		base := rt17pTree(t, u, map[string]string{"ws/x/a/k.pem": "SECRET", "home/f": "h"}, nil, nil)
		ws := base + "/ws"
		r := rt17pRun(t, u, art, base+"/home", ws, "mv x/a x/b; echo mv1=$?; mv x y; echo mv2=$?; cat x/a/k.pem y/a/k.pem x/b/k.pem 2>&1", nil)
		t.Logf("exit %d %q %q %q", r.ExitCode, r.Stdout, r.Stderr, r.SbxError)
		if r.SbxError != "" {
			t.Fatalf("sbx: %s", r.SbxError)
		}
		if !strings.Contains(r.Stdout, "mv1=1") || !strings.Contains(r.Stdout, "mv2=1") || strings.Count(r.Stderr, "Device or resource busy") != 2 {
			t.Errorf("a directory above a deny_glob match was renamed: %q %q", r.Stdout, r.Stderr)
		}
		if strings.Contains(r.Stdout, "SECRET") {
			t.Errorf("the match was read: %q", r.Stdout)
		}
		if !fileExists(ws + "/x/a/k.pem") {
			t.Errorf("the match moved")
		}
	})
}
