package landlock

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPasswdHomeIn: the home directory of a uid in a password database,
// read as the scanner it replaced read it (lines without a trailing
// newline or with a carriage return, short lines skipped), lines longer
// than the first buffer (it grows) and than passwdLine (skipped).
func TestPasswdHomeIn(t *testing.T) {
	long := func(n int) string { return "x:x:7:7:" + strings.Repeat("g", n) + ":/long:/bin/sh\n" }
	for _, tc := range []struct {
		name, db string
		uid      int
		want     string
	}{
		{"first", "root:x:0:0:root:/root:/bin/bash\n", 0, "/root"},
		{"later", "root:x:0:0:root:/root:/bin/bash\nu:x:1000:1000::/home/u:/bin/sh\n", 1000, "/home/u"},
		{"absent", "root:x:0:0:root:/root:/bin/bash\n", 1000, ""},
		{"prefix is not the uid", "a:x:100:1::/a:/bin/sh\nb:x:10:1::/b:/bin/sh\n", 10, "/b"},
		{"no trailing newline", "root:x:0:0:root:/root:/bin/bash\nu:x:5:5::/home/u:/bin/sh", 5, "/home/u"},
		{"carriage return", "u:x:5:5::/home/u\r\n", 5, "/home/u"},
		{"too few fields", "u:x:5:5:/home/u\nv:x:5:5::/home/v:/bin/sh\n", 5, "/home/v"},
		{"no shell field", "u:x:5:5::/home/u\n", 5, "/home/u"},
		{"empty home", "u:x:5:5:::/bin/sh\n", 5, ""},
		{"comment and blank lines", "# users\n\nu:x:5:5::/home/u:/bin/sh\n", 5, "/home/u"},
		{"line longer than the first buffer", long(10 << 10), 7, "/long"},
		{"match after a long line", long(20<<10) + "u:x:5:5::/home/u:/bin/sh\n", 5, "/home/u"},
		{"line longer than passwdLine skipped", long(passwdLine) + "u:x:5:5::/home/u:/bin/sh\n", 5, "/home/u"},
		{"the overlong line itself", long(passwdLine) + "u:x:5:5::/home/u:/bin/sh\n", 7, ""},
		{"overlong last line", "u:x:5:5::/home/u:/bin/sh\n" + strings.TrimSuffix(long(passwdLine), "\n"), 7, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "passwd")
			if err := os.WriteFile(p, []byte(tc.db), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := passwdHomeIn(p, tc.uid); got != tc.want {
				t.Errorf("passwdHomeIn(uid %d) = %q, want %q", tc.uid, got, tc.want)
			}
		})
	}
	if got := passwdHomeIn(filepath.Join(t.TempDir(), "missing"), 0); got != "" {
		t.Errorf("missing database: got %q, want \"\"", got)
	}
}
