package landlock

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/sbx-dev/sbx/ir"
)

// gitConfigMax bounds the bytes read of one git configuration file: git's
// own files are a few kilobytes; a larger one is refused (gitConfigTargets).
const gitConfigMax = 1 << 20

// gitIncludeDepth is how deep includes are followed, as git's own limit
// (MAX_INCLUDE_DEPTH).
const gitIncludeDepth = 10

// gitEntry is one variable of a git configuration file: its name as git
// matches it ("core.hookspath", "includeif.gitdir:~/w/.path": section and
// key lowercased, a subsection as written) and its value.
type gitEntry struct {
	name, value string
	key         string // the name as written, for messages
}

// parseGitConfig reads the variables of a git configuration file, in
// git's syntax: [section], [section "subsection"] and the older
// [section.subsection] headers; "name = value" and a bare "name" (true);
// comments from # or ; outside quotes; double-quoted parts with the
// escapes \" \\ \n \t \b; a backslash at the end of a line continues the
// value on the next. A malformed line is skipped (git would refuse the
// whole file, and then run nothing from it); what follows is still read,
// so that nothing git might read is missed.
func parseGitConfig(data string) []gitEntry {
	var out []gitEntry
	section, shownSection := "", ""
	lines := strings.Split(data, "\n")
	for i := 0; i < len(lines); i++ {
		line := strings.TrimLeft(lines[i], " \t\r")
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				continue
			}
			section, shownSection = gitSection(line[1:end])
			// A variable may follow the header on the same line.
			line = strings.TrimLeft(line[end+1:], " \t\r")
			if line == "" || line[0] == '#' || line[0] == ';' {
				continue
			}
		}
		if section == "" {
			continue
		}
		key := line
		rest := ""
		if j := strings.IndexAny(line, "= \t#;\r"); j >= 0 {
			key, rest = line[:j], strings.TrimLeft(line[j:], " \t\r")
		}
		if key == "" {
			continue
		}
		name, shown := section+"."+strings.ToLower(key), shownSection+"."+key
		if rest == "" || rest[0] == '#' || rest[0] == ';' {
			out = append(out, gitEntry{name: name, key: shown})
			continue
		}
		if rest[0] != '=' {
			continue
		}
		value, more := gitValue(rest[1:])
		for more && i+1 < len(lines) {
			i++
			var next string
			next, more = gitValue(lines[i])
			value += next
		}
		out = append(out, gitEntry{name: name, value: value, key: shown})
	}
	return out
}

// gitSection returns the name a section header gives its variables: the
// section lowercased, then a quoted subsection as written or an old-style
// dotted one lowercased; and the same as written, for messages.
func gitSection(h string) (name, shown string) {
	h = strings.TrimSpace(h)
	if q := strings.IndexByte(h, '"'); q >= 0 {
		sub := h[q+1:]
		sub = strings.TrimSuffix(sub, `"`)
		sub = strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(sub)
		sec := strings.TrimSpace(h[:q])
		return strings.ToLower(sec) + "." + sub, sec + "." + sub
	}
	return strings.ToLower(h), h
}

// gitValue decodes the value part of a line (after "="): quotes removed,
// escapes resolved, an unquoted comment cut, surrounding blanks trimmed.
// more reports a backslash at the line's end: the value goes on.
func gitValue(s string) (value string, more bool) {
	var b strings.Builder
	quoted := false
	pending := "" // blanks kept only if more of the value follows
	s = strings.TrimRight(s, "\r")
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			if i+1 == len(s) {
				b.WriteString(pending)
				return strings.TrimLeft(b.String(), " \t"), true
			}
			i++
			b.WriteString(pending)
			pending = ""
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'b':
				b.WriteByte('\b')
			default:
				b.WriteByte(s[i])
			}
		case c == '"':
			quoted = !quoted
			b.WriteString(pending)
			pending = ""
		case !quoted && (c == '#' || c == ';'):
			return strings.TrimLeft(b.String(), " \t"), false
		case !quoted && (c == ' ' || c == '\t'):
			pending += string(c)
		default:
			b.WriteString(pending)
			pending = ""
			b.WriteByte(c)
		}
	}
	return strings.TrimLeft(b.String(), " \t"), false
}

// gitPathKey reports whether git reads the variable as a path it then
// reads or runs: hooks, included configuration files, the fsmonitor hook.
func gitPathKey(name string) bool {
	switch name {
	case "core.hookspath", "include.path", "core.fsmonitor":
		return true
	}
	return strings.HasPrefix(name, "includeif.") && strings.HasSuffix(name, ".path")
}

// gitCommandKey reports whether git runs the variable's value as a shell
// command (or a program) on the host, on its own or as part of an
// ordinary operation: editors and pagers, the ssh and askpass programs,
// diff, filter and merge drivers, credential helpers, signing programs
// and the SSH signing key command, shell aliases, the upload-pack and
// receive-pack of a remote (run locally for a remote on a path), the
// git:// proxy, the alternate refs command, the pack-objects hook, a
// submodule's update command, difftool and mergetool commands, trailer
// commands, send-email's sendmail command, browsers and man viewers, and
// config-based hooks (red team 30: all but the first group were left
// writable, and the host's next fetch ran what the command wrote).
func gitCommandKey(name, value string) bool {
	switch name {
	case "core.sshcommand", "core.editor", "core.pager", "core.askpass", "sequence.editor",
		"diff.external", "credential.helper", "gpg.program", "interactive.difffilter",
		"core.gitproxy", "core.alternaterefscommand", "uploadpack.packobjectshook",
		"sendemail.sendmailcmd", "sendemail.smtpserver", "sendemail.tocmd", "sendemail.cccmd",
		"sendemail.headercmd":
		return true
	}
	sec, key, _ := strings.Cut(name, ".")
	if i := strings.LastIndexByte(key, '.'); i >= 0 {
		key = key[i+1:]
	}
	switch sec {
	case "diff":
		return key == "textconv" || key == "command"
	case "filter":
		return key == "clean" || key == "smudge" || key == "process"
	case "merge":
		return key == "driver"
	case "credential":
		return key == "helper"
	case "gpg":
		return key == "program" || key == "defaultkeycommand"
	case "pager":
		return true
	case "alias":
		return strings.HasPrefix(value, "!")
	case "remote":
		return key == "uploadpack" || key == "receivepack"
	case "difftool", "mergetool", "browser", "man":
		return key == "cmd" || key == "path"
	case "trailer":
		return key == "cmd" || key == "command"
	case "hook":
		return key == "command"
	case "submodule":
		return key == "update" && strings.HasPrefix(value, "!")
	}
	return false
}

// gitBoolean reports whether an fsmonitor value is a boolean (the built-in
// daemon or none) rather than a hook's path.
func gitBoolean(v string) bool {
	switch strings.ToLower(v) {
	case "", "true", "false", "yes", "no", "on", "off", "1", "0":
		return true
	}
	return false
}

// gitRepo is a repository git runs on the host for a protected name: its
// working tree (where relative hook and command paths start) and the
// directories holding its configuration (the git directory, and the
// common directory a worktree shares).
type gitRepo struct {
	src      ir.BoundRule // the protected name's rule
	worktree string
	dirs     []string
	gitfile  string // a submodule's .git link file, or ""
	named    string // the environment's setting that names it, or ""
	nested   bool   // one level below the workspace (gitNestedRepos)
}

// gitRepoDirs returns the repository directories of the .git at g, of
// kind: g itself, or for a gitfile the directory its "gitdir:" names and
// that directory's commondir (none where the file does not parse).
func gitRepoDirs(v View, g string, kind Kind, followed *[]string) []string {
	if kind != KindFile {
		return []string{g}
	}
	var dirs []string
	if d, ok := readGitLink(v, g, "gitdir:", followed); ok {
		dirs = append(dirs, d)
		if c, ok := readGitLink(v, filepath.Join(d, "commondir"), "", followed); ok {
			dirs = append(dirs, c)
		}
	}
	return dirs
}

// gitNestedMax is the most subdirectories of the working directory that
// gitNestedRepos looks into: each costs an lstat at every start (about
// 9 us here), and a directory with more (a data set's) is not a folder
// of projects.
const gitNestedMax = 10000

// gitNestedRepos returns the repositories one level below the working
// directory's writable root ({cwd}/NAME/.git, a directory or a gitfile):
// a workspace that is a folder of projects, or a project with clones of
// others inside it. Protected names are kept read-only only directly
// below writable roots, so each of these .git was writable, and the
// host's next commit in that project ran the hooks the command planted
// there. They are protected as the workspace's own .git is, where they
// exist; one the command creates is a repository the user has never
// used. Only {cwd} is looked into (one directory listing and an lstat
// per subdirectory, up to gitNestedMax of them): /tmp, writable too,
// holds hundreds of other programs' directories.
func gitNestedRepos(bd *ir.Bound, v View, known []gitRepo, followed *[]string) []gitRepo {
	have := map[string]bool{}
	for _, r := range known {
		have[r.worktree] = true
	}
	var out []gitRepo
	for _, r := range bd.Rules {
		if r.Origin != ir.OriginRule || r.Access != ir.Write || r.Symbolic.Anchor != ir.AnchorCwd || r.Symbolic.Rel != "" {
			continue
		}
		subs := v.Subdirs(r.Path)
		if len(subs) > gitNestedMax {
			continue
		}
		for _, sub := range subs {
			dir := filepath.Join(r.Path, sub)
			g := filepath.Join(dir, ".git")
			kind := v.Lstat(g)
			if (kind != KindDir && kind != KindFile) || have[dir] {
				continue
			}
			have[dir] = true
			repo := gitRepo{src: r, worktree: dir, dirs: gitRepoDirs(v, g, kind, followed), nested: true}
			out = append(out, repo)
		}
	}
	return out
}

// gitEnvRepo returns the repository GIT_DIR names in git's environment
// (getenv), with the working tree GIT_WORK_TREE names or, without one,
// the directory that holds it: git on the host run with that environment
// takes it wherever it runs. A relative path is taken from sbx's working
// directory. The rule of the writable root it lies in (or else the first
// writable root's) stands for it in what it protects.
func gitEnvRepo(bd *ir.Bound, getenv func(string) string) (gitRepo, bool) {
	dir := getenv("GIT_DIR")
	if dir == "" {
		return gitRepo{}, false
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return gitRepo{}, false
	}
	repo := gitRepo{worktree: filepath.Dir(dir), dirs: []string{dir}, named: "GIT_DIR = " + getenv("GIT_DIR") + ", in the environment"}
	if wt := getenv("GIT_WORK_TREE"); wt != "" {
		if w, err := filepath.Abs(wt); err == nil {
			repo.worktree = w
		}
	}
	found := false
	if acc, r, _ := bd.Access(dir); acc == ir.Write && r != nil {
		repo.src, found = *r, true
	}
	for _, r := range bd.Rules {
		if !found && r.Origin == ir.OriginRule && r.Access == ir.Write {
			repo.src, found = r, true
		}
	}
	return repo, found
}

// gitConfigTargets protects what the configuration of the repositories
// behind protected names makes git read or run on the host, where it lies
// in a writable root: the directory core.hooksPath names (husky's
// ".husky/_", a ".githooks" checked in with the project), files that
// include.path and includeIf.*.path pull in, a core.fsmonitor hook, and
// the scripts that command-valued variables name by a path (an editor, a
// pager, ssh or askpass program, a diff, filter or merge driver, a
// credential helper, a signing program, a shell alias). The protected
// .git keeps the configuration itself read-only; without this, the
// command could rewrite the hooks or configuration it points to, and git
// on the host would run them on the next commit, checkout or status.
// The repositories are those behind the protected names (repos), the one
// git finds above a writable root without a .git of its own
// (gitAncestorRepos), and the checked-out submodules of all of them
// (gitSubmodules, whose .git link files are protected too). The files
// read are each repository's config and config.worktree, the user's
// global configuration (~/.gitconfig and the XDG one) and the system's
// (/etc/gitconfig), the files and variables git takes from the
// environment (getenv: GIT_CONFIG_GLOBAL, GIT_CONFIG_SYSTEM,
// GIT_CONFIG_COUNT, GIT_CONFIG_PARAMETERS), and what they include
// (conditions of includeIf are not evaluated: every one counts), up to
// git's depth. Where the profile protects .git (protectsGit), also the
// repositories one level below the working directory (gitNestedRepos)
// and the one GIT_DIR names (gitEnvRepo). A repository's config,
// config.worktree or hooks that is a symbolic link protects its target.
//
// Each existing target gets a read rule of the protected name's. A hooks
// directory, an included file, an fsmonitor hook or a program that is
// missing there is refused: the command could create it; so is a setting
// that names a writable root itself. Words of a command are taken as
// paths when they hold a slash, relative to the working tree; a command
// that reaches a script otherwise (through PATH, or a shell's own
// indirection) is not seen. Values are read from the files as they are
// when the run starts.
//
// protectsGit says the profile protects .git: then the user's and the
// system's configuration files themselves are made read-only where they
// lie in a writable root even with no repository there (red team 31).
func gitConfigTargets(bd *ir.Bound, v View, repos []gitRepo, home string, getenv func(string) string, protectsGit bool) ([]ir.BoundRule, []string, error) {
	inWritable := func(p string) bool {
		a, _, _ := bd.Access(p)
		return a == ir.Write
	}
	var followed []string
	repos = append(repos, gitAncestorRepos(bd, v, repos, &followed)...)
	if protectsGit {
		// Repositories the profile's protected names do not reach, made
		// read-only as they would: only where the profile protects .git
		// (one that leaves the workspace's .git writable means to).
		if r, ok := gitEnvRepo(bd, getenv); ok {
			repos = append(repos, r)
		}
		repos = append(repos, gitNestedRepos(bd, v, repos, &followed)...)
	}
	hgRepos := hgProtectedRepos(bd, v)
	if len(repos) == 0 && len(hgRepos) == 0 && !protectsGit {
		return nil, nil, nil
	}
	repos = append(repos, gitSubmodules(v, repos)...)
	canon := func(p string) string {
		if res, ok := v.(Resolver); ok {
			return resolvePath(v, res.Readlink, filepath.Clean(p), func(l string) { followed = append(followed, l) })
		}
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return filepath.Clean(p)
	}
	expand := func(p, base string) string {
		switch {
		case p == "~" && home != "":
			p = home
		case strings.HasPrefix(p, "~/") && home != "":
			p = filepath.Join(home, p[2:])
		case strings.HasPrefix(p, "~"):
			// ~NAME/...: NAME's home directory, as git expands it
			// (getpwnam). Before red team 31 it was left unresolved,
			// so core.hooksPath = ~root/ws/hooks left a workspace's
			// hooks writable.
			name, rest, _ := strings.Cut(p[1:], "/")
			h := passwdHomeOf(name)
			if h == "" {
				return "" // no such user: git fails on it too
			}
			p = filepath.Join(h, rest)
		case !filepath.IsAbs(p):
			p = filepath.Join(base, p)
		}
		return canon(p)
	}
	var out []ir.BoundRule
	seen := map[string]bool{}
	var refuse error
	// protect adds a read rule for p when it lies in a writable root. A
	// missing p (which the command could create) is refused where git
	// would read or run it whatever is there (does names what git does).
	protect := func(src ir.BoundRule, p, what, does string) {
		if p == "" || !inWritable(p) || seen[p] {
			return
		}
		for _, r := range bd.Rules {
			if r.Origin == ir.OriginRule && r.Access == ir.Write && r.Path == p {
				// A read rule there would make the whole root read-only;
				// left writable, anything git runs or reads there is the
				// command's to write (core.hooksPath = "."). A word of a
				// command that names a directory is only an argument.
				if does != "" && refuse == nil {
					refuse = fmt.Errorf("git configuration names the writable root %s itself (%s): the command could put there anything git on the host runs or reads; refusing (point the setting at a directory or file of its own)", p, what)
				}
				return
			}
		}
		if v.Lstat(p) == KindMissing {
			if does != "" && refuse == nil {
				refuse = fmt.Errorf("git configuration names %s (%s), which does not exist inside a writable root: the command could create it, and git on the host would %s; refusing (create it, or remove the setting)", p, what, does)
			}
			return
		}
		seen[p] = true
		out = append(out, ir.BoundRule{Path: p, Access: ir.Read, Origin: ir.OriginProtect, Symbolic: src.Symbolic, Source: src.Source})
	}
	// guard protects p, which a hook manager reads from the working
	// tree whether or not it exists: existing, it is read-only; missing,
	// its first missing component is made impossible to create where it
	// lies in the working tree or directly in a writable root (the
	// layout guards a name directly in a writable root, and takes
	// creation from any other existing directory: .config/lefthook.yml
	// with .config there). In a repository below the workspace (nested)
	// a missing one is left: guarding it would take creation from the
	// repository's top.
	guard := func(src ir.BoundRule, p, worktree string, nested bool) {
		if p == "" || !inWritable(p) {
			return
		}
		if v.Lstat(p) != KindMissing {
			protect(src, p, "", "")
			return
		}
		q := p
		for d := filepath.Dir(q); d != q && v.Lstat(d) == KindMissing; d = filepath.Dir(d) {
			q = d
		}
		parent := filepath.Dir(q)
		root := false
		for _, r := range bd.Rules {
			root = root || r.Origin == ir.OriginRule && r.Access == ir.Write && r.Path == parent
		}
		if seen[q] || nested || !ir.PathWithin(parent, worktree) && !root || !inWritable(q) {
			return
		}
		seen[q] = true
		out = append(out, ir.BoundRule{Path: q, Access: ir.Read, Origin: ir.OriginProtect, Symbolic: src.Symbolic, Source: src.Source})
	}
	// hooks protects what the hooks in dir lead git to run: the targets
	// of hooks that are links (a project's scripts/pre-commit linked into
	// .git/hooks, as many projects ask), and the configuration a hook
	// manager's hook reads from the working tree (hookManagerFiles: the
	// pre-commit framework's, lefthook's), which lists the commands the
	// host's next commit runs. A sample is never run.
	hooks := func(src ir.BoundRule, dir, worktree string, nested bool) {
		l, ok := v.(EntryLister)
		if !ok || dir == "" {
			return
		}
		links, files := l.Entries(dir)
		for _, name := range links {
			if !strings.HasSuffix(name, ".sample") {
				p := filepath.Join(dir, name)
				protect(src, canon(p), "the hook link "+p, "run it")
				files = append(files, name)
			}
		}
		if worktree == "" {
			return
		}
		for _, name := range files {
			if strings.HasSuffix(name, ".sample") {
				continue
			}
			script, _ := readRegular(filepath.Join(dir, name), hookScriptMax)
			for _, rel := range hookManagerFiles(script, getenv) {
				p := rel
				if !filepath.IsAbs(p) {
					p = filepath.Join(worktree, p)
				}
				guard(src, canon(p), worktree, nested)
			}
		}
	}
	// set names a variable for protect's refusal.
	set := func(e gitEntry, file string) string { return fmt.Sprintf("%s = %s, in %s", e.key, e.value, file) }
	// command protects what a shell command git or hg runs names, relative
	// to base (the working tree, where they run it). The program, and the
	// script an interpreter is given, are run whatever they hold: missing,
	// they are refused. Other words with a slash are protected where they
	// exist.
	command := func(src ir.BoundRule, value, base, what string) {
		run := false
		words, starts := gitWords(value)
		for i, w := range words {
			run = run || starts[i]
			does := ""
			if run {
				does = "run it"
			}
			if strings.Contains(w, "/") && !strings.HasPrefix(w, "$") {
				protect(src, expand(w, base), what, does)
			}
			// An option's value ("-o ProxyCommand=tools/p.sh",
			// "--exec=./x"): ssh runs a ProxyCommand on every
			// connection (red team 30: left writable, the host's
			// next fetch over ssh would have run it). Protected
			// where it exists.
			if _, val, ok := strings.Cut(w, "="); ok && strings.Contains(val, "/") && !strings.HasPrefix(val, "$") {
				protect(src, expand(val, base), what, "")
			}
			run = gitInterpreter(filepath.Base(w))
		}
	}
	// entries reads and parses each file once (the user's and the
	// system's files serve every repository). A file larger than
	// gitConfigMax is refused: what sbx would not read could name hooks.
	parsed := map[string][]gitEntry{}
	entries := func(file string) []gitEntry {
		if es, ok := parsed[file]; ok {
			return es
		}
		data, ok := readRegular(file, gitConfigMax)
		if ok && len(data) >= gitConfigMax && refuse == nil {
			refuse = fmt.Errorf("git configuration %s is %d bytes or more, more than sbx reads: it could name hooks or scripts in a writable root that the command could rewrite; refusing", file, gitConfigMax)
		}
		es := parseGitConfig(data)
		parsed[file] = es
		return es
	}
	// Files already read for a working tree, so that an include cycle
	// ends.
	read := map[[2]string]bool{}
	var walk func(src ir.BoundRule, file, worktree string, nested bool, depth int)
	walk = func(src ir.BoundRule, file, worktree string, nested bool, depth int) {
		if depth > gitIncludeDepth || read[[2]string{file, worktree}] {
			return
		}
		read[[2]string{file, worktree}] = true
		for _, e := range entries(file) {
			switch {
			case e.name == "core.fsmonitor":
				if !gitBoolean(e.value) {
					protect(src, expand(firstWord(e.value), worktree), set(e, file), "run it on every status")
				}
			case e.name == "core.hookspath":
				dir := expand(e.value, worktree)
				protect(src, dir, set(e, file), "run the hooks in it")
				hooks(src, dir, worktree, nested)
				// husky 9 sets core.hooksPath = .husky/_ (DIR/_ for a
				// husky directory of another name), whose stubs (each
				// ". $(dirname $0)/h") have _/h run .husky/NAME, the
				// project's own hook of that name, when it exists: the
				// stubs read-only, the command wrote or created
				// .husky/pre-commit and the host's next commit ran it
				// (red team 31). Where the runner _/h is there, the
				// directory above the stubs is made read-only too.
				if dir != "" && filepath.Base(dir) == "_" && v.Lstat(filepath.Join(dir, "h")) == KindFile {
					protect(src, filepath.Dir(dir), set(e, file)+" (husky runs the hooks in "+filepath.Dir(dir)+")", "")
				}
			case gitPathKey(e.name):
				// An included file's relative path starts at the including
				// file's directory; git refuses one given in its
				// environment, which has none.
				if file == gitEnvFile && !filepath.IsAbs(e.value) && !strings.HasPrefix(e.value, "~") {
					continue
				}
				inc := expand(e.value, filepath.Dir(file))
				protect(src, inc, set(e, file), "read it as configuration")
				if inc != "" {
					walk(src, inc, worktree, nested, depth+1)
				}
			case gitCommandKey(e.name, e.value):
				command(src, strings.TrimPrefix(e.value, "!"), worktree, set(e, file))
			}
		}
	}
	var global []string
	if home != "" {
		global = append(global, filepath.Join(home, ".gitconfig"))
		if x := getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
			global = append(global, filepath.Join(x, "git", "config"))
		} else {
			global = append(global, filepath.Join(home, ".config", "git", "config"))
		}
	}
	global = append(global, "/etc/gitconfig")
	// The host's git takes these from its environment instead of (or on
	// top of) the files above; sbx's environment is the nearest to it
	// there is. They are read in addition to the defaults: an
	// environment the host's git runs without (another terminal) then
	// costs a carve-out, never a missed hook.
	// A file the environment names is itself protected where it lies in
	// a writable root, and refused there when missing, as an include is.
	envFiles := map[string]string{}
	for _, name := range []string{"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"} {
		f := getenv(name)
		switch {
		case filepath.IsAbs(f):
		case strings.HasPrefix(f, "~/") && home != "":
			f = filepath.Join(home, f[2:])
		default:
			continue
		}
		global = append(global, f)
		envFiles[f] = name + " = " + getenv(name)
	}
	if es := gitEnvEntries(getenv); len(es) > 0 {
		parsed[gitEnvFile] = es
		global = append(global, gitEnvFile)
	}
	for _, repo := range repos {
		if repo.nested {
			// A repository one level below the workspace: read-only as a
			// protected .git is (it exists: nothing to refuse).
			protect(repo.src, filepath.Join(repo.worktree, ".git"), "", "")
			for _, d := range repo.dirs {
				protect(repo.src, d, "", "")
			}
		}
		if repo.named != "" {
			// The repository git's environment names: itself read-only
			// where it lies in a writable root, as a protected .git is,
			// and refused there when missing.
			for _, d := range repo.dirs {
				protect(repo.src, d, repo.named, "use it as the repository")
			}
		}
		if repo.gitfile != "" {
			// A submodule's gitfile: rewritten, it would make the host's
			// git (a "git status" in the superproject recurses into it)
			// take a repository the command made.
			protect(repo.src, repo.gitfile, "", "")
		}
		for _, d := range repo.dirs {
			// The repository's configuration and hooks kept elsewhere
			// through a link (as dotfile managers do): the read-only .git
			// does not cover what the link leads to (red team 25).
			for _, name := range []string{"config", "config.worktree", "hooks"} {
				if p := filepath.Join(d, name); v.Lstat(p) == KindSymlink {
					does := "read it as the repository's configuration"
					if name == "hooks" {
						does = "run the hooks in it"
					}
					protect(repo.src, canon(p), "the link "+p, does)
				}
			}
			hooks(repo.src, filepath.Join(d, "hooks"), repo.worktree, repo.nested)
			walk(repo.src, filepath.Join(d, "config"), repo.worktree, repo.nested, 0)
			walk(repo.src, filepath.Join(d, "config.worktree"), repo.worktree, repo.nested, 0)
		}
		// The user's and the system's files apply to every repository;
		// their relative paths start at each working tree.
		for _, g := range global {
			walk(repo.src, g, repo.worktree, repo.nested, 0)
		}
	}
	// The user's and the system's files themselves, where they lie in a
	// writable root or link into one, whatever repository the roots hold
	// (red team 31: ~/.gitconfig a GNU stow link to ~/dotfiles/gitconfig,
	// or $XDG_CONFIG_HOME in the workspace; with --cwd ~/dotfiles the
	// command added a core.pager, which every git on the host then ran,
	// in every repository). A file the environment names is refused
	// there when missing, as an include is; a default one may be missing.
	for _, g := range global {
		what, named := envFiles[g]
		if !filepath.IsAbs(g) || !protectsGit && !named {
			continue
		}
		p := canon(g)
		for _, r := range bd.Rules {
			if r.Origin == ir.OriginRule && r.Access == ir.Write && ir.PathWithin(p, r.Path) {
				if named {
					protect(r, p, what+", in the environment", "read it as configuration")
				} else {
					protect(r, p, "the user's or the system's git configuration "+g, "")
				}
				break
			}
		}
	}
	// Mercurial's and Sapling's repositories behind the protected names
	// .hg and .sl: the protected directory keeps hgrc read-only, not what
	// it runs (red team 31: "[hooks] precommit.lint = sh tools/lint.sh"
	// left tools/lint.sh the command's to rewrite, and the host's next
	// hg commit ran it). Their configuration, a shared repository's
	// source's, the user's and the system's, and what they %include, are
	// read as git's are; hooks and the other commands hg runs have what
	// they name protected (relative to the repository's root, where hg
	// runs hooks), and so do the Python files of "python:FILE:func" hooks
	// and of extensions given by a path.
	var hgWalk func(src ir.BoundRule, file, root string, depth int)
	hgWalk = func(src ir.BoundRule, file, root string, depth int) {
		if depth > gitIncludeDepth || read[[2]string{file, root}] {
			return
		}
		read[[2]string{file, root}] = true
		data, ok := readRegular(file, gitConfigMax)
		if !ok {
			return
		}
		if len(data) >= gitConfigMax && refuse == nil {
			refuse = fmt.Errorf("hg configuration %s is %d bytes or more, more than sbx reads: it could name hooks or scripts in a writable root that the command could rewrite; refusing", file, gitConfigMax)
		}
		entries, includes := parseHgConfig(data)
		for _, inc := range includes {
			p := expand(inc, filepath.Dir(file))
			protect(src, p, "%include "+inc+", in "+file, "read it as configuration")
			if p != "" {
				hgWalk(src, p, root, depth+1)
			}
		}
		for _, e := range entries {
			what := fmt.Sprintf("[%s] %s = %s, in %s", e.section, e.key, e.value, file)
			if f := hgPythonFile(e); f != "" {
				protect(src, expand(f, root), what, "load it")
			}
			if hgRunKey(e) {
				command(src, strings.TrimPrefix(e.value, "!"), root, what)
			}
		}
	}
	for _, r := range hgRepos {
		for _, f := range hgConfigFiles(r, home, getenv) {
			hgWalk(r.src, f, r.root, 0)
		}
	}
	if refuse != nil {
		return nil, nil, refuse
	}
	return out, followed, nil
}

// gitEnvFile names the variables git takes from its environment
// (gitEnvEntries) where a file's name would be, in messages.
const gitEnvFile = "the environment (GIT_CONFIG_COUNT, GIT_CONFIG_PARAMETERS)"

// gitEnvMax bounds the GIT_CONFIG_KEY_n variables read (git reads as many
// as GIT_CONFIG_COUNT says; beyond this many, sbx would spend its start on
// the environment).
const gitEnvMax = 1000

// gitEnvEntries returns the configuration variables git takes from its
// environment: GIT_CONFIG_KEY_<n> and GIT_CONFIG_VALUE_<n> for n below
// GIT_CONFIG_COUNT (git 2.31), and GIT_CONFIG_PARAMETERS, which git sets
// for the commands it runs from its -c options (as 'key'='value' or, from
// older versions, 'key=value', single-quoted as a shell would take them).
// A malformed count or key is skipped: git refuses it, and runs nothing.
func gitEnvEntries(getenv func(string) string) []gitEntry {
	var out []gitEntry
	if n, err := strconv.Atoi(getenv("GIT_CONFIG_COUNT")); err == nil && n > 0 {
		for i := range min(n, gitEnvMax) {
			k := getenv(fmt.Sprintf("GIT_CONFIG_KEY_%d", i))
			if e, ok := gitEnvEntry(k, getenv(fmt.Sprintf("GIT_CONFIG_VALUE_%d", i))); ok {
				out = append(out, e)
			}
		}
	}
	for _, kv := range gitParameters(getenv("GIT_CONFIG_PARAMETERS")) {
		if e, ok := gitEnvEntry(kv[0], kv[1]); ok {
			out = append(out, e)
		}
	}
	return out
}

// gitEnvEntry makes the variable key (section.name or
// section.subsection.name) with value, named as parseGitConfig names a
// file's: section and name lowercased, the subsection as written.
func gitEnvEntry(key, value string) (gitEntry, bool) {
	first, last := strings.IndexByte(key, '.'), strings.LastIndexByte(key, '.')
	if first <= 0 || last == len(key)-1 {
		return gitEntry{}, false
	}
	name := strings.ToLower(key[:first]) + key[first:last+1] + strings.ToLower(key[last+1:])
	return gitEntry{name: name, value: value, key: key}, true
}

// gitParameters splits GIT_CONFIG_PARAMETERS into keys and values: words
// separated by blanks, each single-quoted as a shell reads it (a quote
// inside closed, escaped with a backslash and reopened),
// either 'key'='value' or 'key=value'. What does not parse ends the list.
func gitParameters(s string) [][2]string {
	var out [][2]string
	for {
		s = strings.TrimLeft(s, " \t\n")
		if s == "" {
			return out
		}
		key, rest, ok := gitSingleQuoted(s)
		if !ok {
			return out
		}
		var value string
		switch {
		case strings.HasPrefix(rest, "='"):
			if value, rest, ok = gitSingleQuoted(rest[1:]); !ok {
				return out
			}
		case strings.Contains(key, "="):
			key, value, _ = strings.Cut(key, "=")
		default:
			// A bare key: a variable set to true, nothing git runs.
		}
		out = append(out, [2]string{key, value})
		s = rest
	}
}

// gitSingleQuoted reads one single-quoted string at the start of s, with
// a quote inside written as the shell's closing quote, escaped quote and
// opening quote, and returns it and what follows.
func gitSingleQuoted(s string) (word, rest string, ok bool) {
	var b strings.Builder
	for strings.HasPrefix(s, "'") {
		end := strings.IndexByte(s[1:], '\'')
		if end < 0 {
			return "", "", false
		}
		b.WriteString(s[1 : 1+end])
		s = s[2+end:]
		if !strings.HasPrefix(s, "\\''") {
			return b.String(), s, true
		}
		b.WriteByte('\'')
		s = s[2:]
	}
	return "", "", false
}

// gitInterpreter reports whether the next word of a command after program
// is the script program runs.
func gitInterpreter(program string) bool {
	switch program {
	case "sh", "bash", "dash", "zsh", "ksh", "fish", "python", "python3", "perl", "ruby", "node", "php", "env":
		return true
	}
	return false
}

// firstWord is the first blank-separated word of s.
func firstWord(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}

// gitAncestorRepos returns the repositories git on the host finds from a
// writable root that holds none of its own: the nearest directory above
// the root with a .git (a directory, or a link file naming one), as git's
// discovery walks up. Its .git lies outside the writable root, read-only
// already, and no protect rule names it, but its configuration applies to
// the root's files (a working tree that holds the workspace, with
// core.hooksPath = ws/hooks). known are the repositories found from the
// protected names; link files' links followed are appended to followed.
func gitAncestorRepos(bd *ir.Bound, v View, known []gitRepo, followed *[]string) []gitRepo {
	have := map[string]bool{}
	for _, r := range known {
		have[r.worktree] = true
	}
	var out []gitRepo
	for _, r := range bd.Rules {
		if r.Origin != ir.OriginRule || r.Access != ir.Write || v.Lstat(filepath.Join(r.Path, ".git")) != KindMissing {
			continue
		}
		for dir := filepath.Dir(r.Path); ; dir = filepath.Dir(dir) {
			g := filepath.Join(dir, ".git")
			kind := v.Lstat(g)
			if kind == KindDir || kind == KindFile {
				if !have[dir] {
					have[dir] = true
					out = append(out, gitRepo{src: r, worktree: dir, dirs: gitRepoDirs(v, g, kind, followed)})
				}
				break
			}
			if dir == "/" {
				break
			}
		}
	}
	return out
}

// gitSubmodules returns the submodules of repos whose working trees are
// checked out: each repository kept in a git directory's modules/ (named
// by the submodule's name, which may hold slashes, and nesting its own
// modules/), whose core.worktree names its working tree, where a .git link
// file points back to it. git on the host runs in them (a "git status"
// in the superproject recurses into each), so their configuration counts,
// and their link files are protected where they lie in a writable root.
func gitSubmodules(v View, repos []gitRepo) []gitRepo {
	var out []gitRepo
	var visit func(src ir.BoundRule, dir string, depth int)
	visit = func(src ir.BoundRule, dir string, depth int) {
		if depth > 16 {
			return
		}
		for _, name := range v.Subdirs(dir) {
			m := filepath.Join(dir, name)
			if v.Lstat(filepath.Join(m, "HEAD")) == KindMissing {
				// A component of a name with slashes ("libs/foo").
				visit(src, m, depth+1)
				continue
			}
			data, _ := readRegular(filepath.Join(m, "config"), gitConfigMax)
			for _, e := range parseGitConfig(data) {
				if e.name != "core.worktree" || e.value == "" {
					continue
				}
				wt := e.value
				if !filepath.IsAbs(wt) {
					wt = filepath.Join(m, wt)
				}
				wt = filepath.Clean(wt)
				if v.Lstat(filepath.Join(wt, ".git")) == KindFile {
					out = append(out, gitRepo{src: src, worktree: wt, dirs: []string{m}, gitfile: filepath.Join(wt, ".git")})
				}
			}
			visit(src, filepath.Join(m, "modules"), depth+1)
		}
	}
	for _, r := range repos {
		for _, d := range r.dirs {
			visit(r.src, filepath.Join(d, "modules"), 0)
		}
	}
	return out
}

// gitWords splits a command-valued variable into the words the shell
// would run, quotes removed, and tells which start a command: the first,
// and each after a separator (; | & ( ) { } or a backquote), where a
// script's path follows as often as at the start ("!f() { ./x.sh; }; f",
// "npm test && ./scripts/check.sh"). A separator is a word's end too
// (red team 30: "sh tools/x.sh;" was taken for a file named "x.sh;",
// which did not exist, and tools/x.sh stayed writable). A redirection's
// file ends the word before it and starts none.
func gitWords(v string) (words []string, starts []bool) {
	start := true
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			words = append(words, b.String())
			starts = append(starts, start)
			start = false
			b.Reset()
		}
	}
	for _, r := range v {
		switch {
		case r == ' ' || r == '\t' || r == '\r':
			flush()
		case r == '\n' || strings.ContainsRune(";|&(){}`", r):
			// A new line starts a command, as a separator does (an hg
			// hook's value continued on several lines is a script).
			flush()
			start = true
		case r == '<' || r == '>':
			flush()
		case r == '\'' || r == '"':
		default:
			b.WriteRune(r)
		}
	}
	flush()
	return words, starts
}

// passwdHomeOf returns the home directory of the user named name in
// /etc/passwd, or "" (no such user, no file, not an absolute path). Only
// a git configuration value that starts with ~NAME reads it.
func passwdHomeOf(name string) string {
	if name == "" || strings.ContainsAny(name, ":\n") {
		return ""
	}
	data, err := os.ReadFile("/etc/passwd")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Split(line, ":")
		if len(f) >= 6 && f[0] == name && filepath.IsAbs(f[5]) {
			return filepath.Clean(f[5])
		}
	}
	return ""
}

// hookScriptMax bounds how much of a hook script is read to tell which
// hook manager wrote it (the marks are in its first lines).
const hookScriptMax = 64 << 10

// hookManagerFiles returns the files and directories, relative to the top
// of the working tree unless absolute, from which the hook manager that
// wrote script (a hook git runs) takes the commands it runs: none for a
// hook of no manager known here.
//
//   - The pre-commit framework (https://pre-commit.com): its hook runs
//     "pre-commit hook-impl --config=FILE", FILE (.pre-commit-config.yaml
//     by default) read from the top of the working tree at every commit;
//     a "repo: local" hook there runs any command.
//   - lefthook: its hook runs "lefthook run HOOK", which reads the main
//     configuration under any of its names (lefthook.yml, .lefthook.yml,
//     .config/lefthook.yml, in YAML, TOML, JSON or JSONC), or the file
//     LEFTHOOK_CONFIG names, merges the local one (lefthook-local.yml,
//     which may exist alone), and runs the scripts in .lefthook/HOOK and
//     .lefthook-local/HOOK.
func hookManagerFiles(script string, getenv func(string) string) []string {
	var out []string
	if strings.Contains(script, "hook-impl") && strings.Contains(script, "pre-commit") {
		cfg := ".pre-commit-config.yaml"
		if i := strings.Index(script, "'--config="); i >= 0 {
			cfg = hookWord(script[i:])
		} else if _, rest, ok := strings.Cut(script, "--config="); ok {
			cfg = hookWord(rest)
		}
		if cfg != "" {
			out = append(out, cfg)
		}
	}
	if strings.Contains(script, "lefthook") {
		for _, base := range []string{"lefthook", "lefthook-local"} {
			for _, ext := range []string{"yml", "yaml", "toml", "json", "jsonc"} {
				name := base + "." + ext
				out = append(out, name, "."+name, filepath.Join(".config", name))
			}
		}
		out = append(out, ".lefthook", ".lefthook-local")
		if c := getenv("LEFTHOOK_CONFIG"); c != "" {
			out = append(out, c)
		}
	}
	return out
}

// hookWord returns the value at the start of s, as a shell would read
// the word "--config=VALUE" a hook manager wrote: up to a blank, a
// closing parenthesis or a quote, or the whole of a single-quoted word
// ("'--config=my config.yaml'", as Python's shlex.quote writes it).
func hookWord(s string) string {
	if rest, ok := strings.CutPrefix(s, "'--config="); ok {
		w, _, _ := strings.Cut(rest, "'")
		return w
	}
	end := strings.IndexAny(s, " \t\n)\"'")
	if end < 0 {
		end = len(s)
	}
	return s[:end]
}
