// rt12: red-team helper for sbx (redteam12_test.go). Usage: rt12 OP [ARGS...];
// prints one verdict line of "name=value" words.
//
// Built twice: statically as the helper, and with -DRT12_PRELOAD -shared
// -fPIC as a library whose constructor prints the same status line as
// "rt12 status" and exits, so that LD_PRELOAD of it into a set-id program
// shows the credentials that program runs with (the dynamic loader honours
// LD_PRELOAD only when the kernel did not mark the exec secure, AT_SECURE).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>
#ifndef RT12_PRELOAD
#include <mqueue.h>
#endif

static const char *en(int e) {
	switch (e) {
	case 0: return "ok"; case EPERM: return "EPERM"; case EACCES: return "EACCES"; case ENOSYS: return "ENOSYS";
	case EBADF: return "EBADF"; case ENOENT: return "ENOENT"; case EROFS: return "EROFS"; case EXDEV: return "EXDEV";
	case ENXIO: return "ENXIO"; case ENOTTY: return "ENOTTY"; case EAGAIN: return "EAGAIN"; case EIO: return "EIO";
	case EINVAL: return "EINVAL"; case ENOEXEC: return "ENOEXEC"; case ETXTBSY: return "ETXTBSY"; case EEXIST: return "EEXIST";
	case ENOTDIR: return "ENOTDIR"; case EISDIR: return "EISDIR"; case ELOOP: return "ELOOP"; case ENODEV: return "ENODEV";
	}
	static char b[32]; snprintf(b, sizeof b, "errno%d", e); return b;
}

// status prints the credentials of this process, as /proc/self/status and
// the kernel (securebits, AT_SECURE) report them.
static void status(const char *prefix, const char *file) {
	char line[512], uid[64] = "?", gid[64] = "?", prm[32] = "?", eff[32] = "?", bnd[32] = "?", amb[32] = "?", inh[32] = "?", nnp[8] = "?";
	FILE *f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof line, f)) {
		char *v = strchr(line, ':');
		if (!v) continue;
		*v++ = 0;
		while (*v == ' ' || *v == '\t') v++;
		v[strcspn(v, "\n")] = 0;
		for (char *p = v; *p; p++) if (*p == '\t') *p = ',';
		if (!strcmp(line, "Uid")) snprintf(uid, sizeof uid, "%s", v);
		else if (!strcmp(line, "Gid")) snprintf(gid, sizeof gid, "%s", v);
		else if (!strcmp(line, "CapPrm")) snprintf(prm, sizeof prm, "%s", v);
		else if (!strcmp(line, "CapEff")) snprintf(eff, sizeof eff, "%s", v);
		else if (!strcmp(line, "CapBnd")) snprintf(bnd, sizeof bnd, "%s", v);
		else if (!strcmp(line, "CapAmb")) snprintf(amb, sizeof amb, "%s", v);
		else if (!strcmp(line, "CapInh")) snprintf(inh, sizeof inh, "%s", v);
		else if (!strcmp(line, "NoNewPrivs")) snprintf(nnp, sizeof nnp, "%s", v);
	}
	if (f) fclose(f);
	printf("%suid=%s gid=%s prm=%s eff=%s inh=%s bnd=%s amb=%s nnp=%s secbits=%#x secure=%lu", prefix, uid, gid, prm, eff, inh, bnd, amb, nnp,
	       (unsigned)prctl(PR_GET_SECUREBITS, 0, 0, 0, 0), getauxval(AT_SECURE));
	if (file) {
		int fd = open(file, O_RDONLY);
		printf(" dac=%s", fd >= 0 ? "ok" : en(errno));
		if (fd >= 0) close(fd);
	}
	printf("\n");
	fflush(stdout);
}

#ifdef RT12_PRELOAD
__attribute__((constructor)) static void rt12_preload(void) {
	status("preload ", getenv("RT12_DAC"));
	_exit(0);
}
#else

extern char **environ;

// route runs one way of executing code in a child whose stdout and stderr
// go to a pipe, and returns "ok" when the child printed "ran", the errno
// name the child reported ("E:NAME"), or what the dynamic loader said.
static const char *route(const char *name, const char *target, const char *dir) {
	int p[2];
	if (pipe(p) < 0) return "pipe";
	fflush(stdout); // the child must not write the parent's buffer
	pid_t pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		close(p[0]);
		char *argv[] = {(char *)target, "ran", NULL};
		int e = 0;
		if (!strcmp(name, "execve")) {
			execve(target, argv, environ);
		} else if (!strcmp(name, "ldso")) {
			char *ld[] = {"/lib64/ld-linux-x86-64.so.2", (char *)target, "ran", NULL};
			execve(ld[0], ld, environ);
		} else if (!strcmp(name, "opath") || !strcmp(name, "fexecve") || !strcmp(name, "procfd")) {
			int fd = open(target, !strcmp(name, "fexecve") ? O_RDONLY : O_PATH);
			if (fd < 0) goto fail;
			if (!strcmp(name, "procfd")) {
				char b[64];
				snprintf(b, sizeof b, "/proc/self/fd/%d", fd);
				execve(b, argv, environ);
			} else {
				syscall(SYS_execveat, fd, "", argv, environ, AT_EMPTY_PATH);
			}
		} else if (!strcmp(name, "script")) {
			// dir is an existing "#!TARGET ran" script (written before the
			// run: a file created and executed at once races with the
			// supervisor's copy of its descriptor, see create-exec).
			char *sv[] = {(char *)dir, NULL};
			execve(dir, sv, environ);
		} else if (!strcmp(name, "mmap") || !strcmp(name, "mprotect")) {
			int fd = open(target, O_RDONLY);
			if (fd < 0) goto fail;
			int prot = !strcmp(name, "mmap") ? PROT_READ | PROT_EXEC : PROT_READ;
			void *m = mmap(NULL, 4096, prot, MAP_PRIVATE, fd, 0);
			if (m == MAP_FAILED) goto fail;
			if (!strcmp(name, "mprotect") && mprotect(m, 4096, PROT_READ | PROT_EXEC) < 0) goto fail;
			printf("ran\n");
			fflush(stdout);
			_exit(0);
		} else if (!strcmp(name, "shm")) {
			// Copy the program to /dev/shm and run it from there.
			char s[64], buf[65536];
			snprintf(s, sizeof s, "/dev/shm/rt12-copy-%d", getpid());
			int in = open(target, O_RDONLY);
			if (in < 0) goto fail;
			int out = open(s, O_CREAT | O_WRONLY | O_TRUNC, 0755);
			if (out < 0) goto fail;
			ssize_t n;
			while ((n = read(in, buf, sizeof buf)) > 0) write(out, buf, n);
			close(out);
			char *sv[] = {s, "ran", NULL};
			execve(s, sv, environ);
			e = errno;
			unlink(s);
			errno = e;
		}
	fail:
		printf("E:%s\n", en(errno));
		fflush(stdout);
		_exit(1);
	}
	close(p[1]);
	static char out[8][256];
	static int slot;
	char *o = out[slot++ % 8];
	int n = 0, r;
	while (n < 255 && (r = read(p[0], o + n, 255 - n)) > 0) n += r;
	o[n] = 0;
	close(p[0]);
	int st;
	waitpid(pid, &st, 0);
	// What a child that exec'd could not remove.
	char left[64];
	snprintf(left, sizeof left, "/dev/shm/rt12-copy-%d", pid);
	unlink(left);
	if (strstr(o, "ran")) return "ok";
	if (!strncmp(o, "E:", 2)) { o[strcspn(o, "\n")] = 0; return o + 2; }
	if (strstr(o, "Permission denied")) return "EACCES";
	if (strstr(o, "Operation not permitted")) return "EPERM";
	if (strstr(o, "No such file")) return "ENOENT";
	static char b[32];
	snprintf(b, sizeof b, "fail%d", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	return b;
}

// pty opens a terminal it was not given, writes to it, reads what was
// typed on it and tries the ioctls that act on its owner's session.
static void pty(const char *path, const char *marker) {
	int fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		printf("open=%s\n", en(errno));
		return;
	}
	printf("open=ok");
	printf(" write=%s", write(fd, marker, strlen(marker)) >= 0 ? "ok" : en(errno));
	char buf[128];
	usleep(100000);
	ssize_t n = read(fd, buf, sizeof buf - 1);
	if (n > 0) {
		buf[n] = 0;
		for (char *p = buf; *p; p++) if (*p == ' ' || *p == '\n' || *p == '\r') *p = '_';
		printf(" read=%s", buf);
	} else {
		printf(" read=%s", n == 0 ? "eof" : en(errno));
	}
	char c = '#';
	printf(" sti=%s", ioctl(fd, TIOCSTI, &c) == 0 ? "ok" : en(errno));
	struct winsize w;
	int r = ioctl(fd, TIOCGWINSZ, &w);
	if (r == 0) r = ioctl(fd, TIOCSWINSZ, &w);
	printf(" winsz=%s", r == 0 ? "ok" : en(errno));
	struct termios t;
	r = tcgetattr(fd, &t);
	if (r == 0) r = tcsetattr(fd, TCSANOW, &t);
	printf(" tcsets=%s", r == 0 ? "ok" : en(errno));
	pid_t pg = 0;
	printf(" pgrp=%s\n", ioctl(fd, TIOCGPGRP, &pg) == 0 ? "ok" : en(errno));
}

// session reports how the command could reach the terminal sbx runs on.
static void session(const char *pts) {
	int fd = open("/dev/tty", O_RDWR | O_NOCTTY);
	printf("devtty=%s", fd >= 0 ? "ok" : en(errno));
	int ttys = 0;
	for (int i = 0; i < 256; i++) if (isatty(i)) ttys++;
	printf(" ttyfds=%d", ttys);
	printf(" sctty=%s", ioctl(0, TIOCSCTTY, 0) == 0 ? "ok" : en(errno));
	fd = open(pts, O_RDWR | O_NOCTTY | O_NONBLOCK);
	printf(" pts=%s\n", fd >= 0 ? "ok" : en(errno));
}

int main(int argc, char **argv) {
	if (argc < 2) return 2;
	const char *op = argv[1];
	if (!strcmp(op, "ran")) {
		printf("ran\n");
		return 0;
	}
	if (!strcmp(op, "status")) {
		status("", argc > 2 ? argv[2] : NULL);
		return 0;
	}
	if (!strcmp(op, "routes") && argc > 3) {
		// rt12 routes TARGET SCRIPT: every way of running TARGET (a
		// program that prints "ran" when given the argument "ran");
		// SCRIPT is an executable "#!TARGET ran" script.
		const char *names[] = {"execve", "ldso", "opath", "fexecve", "procfd", "script", "mmap", "mprotect", "shm"};
		for (int i = 0; i < 9; i++) printf("%s%s=%s", i ? " " : "", names[i], route(names[i], argv[2], argv[3]));
		printf("\n");
		return 0;
	}
	if (!strcmp(op, "create-exec") && argc > 3) {
		// rt12 create-exec DIR N: N times, write a copy of this program
		// to a new file in DIR (open O_CREAT, write, close) and execute
		// it at once, as a compiler driver or a test harness does; count
		// the outcomes of the execve.
		int n = atoi(argv[3]), ok = 0, busy = 0, other = 0, olderr = 0;
		static char self[1 << 21];
		int fd = open("/proc/self/exe", O_RDONLY);
		ssize_t len = fd < 0 ? -1 : read(fd, self, sizeof self);
		if (len <= 0) { printf("self=%s\n", en(errno)); return 0; }
		close(fd);
		for (int i = 0; i < n; i++) {
			char p[4096];
			snprintf(p, sizeof p, "%s/rt12-ce-%d-%d", argv[2], getpid(), i);
			fflush(stdout);
			pid_t c = fork();
			if (c == 0) {
				fd = open(p, O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0755);
				if (fd < 0) _exit(10 + (errno & 0x7f));
				write(fd, self, len);
				close(fd);
				int dn = open("/dev/null", O_WRONLY);
				dup2(dn, 1);
				char *cv[] = {p, "ran", NULL};
				execve(p, cv, environ);
				_exit(errno == ETXTBSY ? 3 : 4);
			}
			int st;
			waitpid(c, &st, 0);
			if (WIFEXITED(st) && WEXITSTATUS(st) == 0) ok++;
			else if (WIFEXITED(st) && WEXITSTATUS(st) == 3) busy++;
			else {
				other++;
				if (WIFEXITED(st) && WEXITSTATUS(st) >= 10) olderr = WEXITSTATUS(st) - 10;
			}
			unlink(p);
		}
		printf("ok=%d etxtbsy=%d other=%d%s%s\n", ok, busy, other, olderr ? " err=" : "", olderr ? en(olderr) : "");
		return 0;
	}
	if (!strcmp(op, "pty") && argc > 3) {
		pty(argv[2], argv[3]);
		return 0;
	}
	if (!strcmp(op, "session") && argc > 2) {
		session(argv[2]);
		return 0;
	}
	if (!strcmp(op, "mq") && argc > 3) {
		// rt12 mq NAME create|open|unlink
		if (!strcmp(argv[3], "unlink")) {
			printf("mq=%s\n", mq_unlink(argv[2]) == 0 ? "ok" : en(errno));
			return 0;
		}
		int create = !strcmp(argv[3], "create");
		struct mq_attr a = {.mq_maxmsg = 4, .mq_msgsize = 64};
		mqd_t q = mq_open(argv[2], create ? O_CREAT | O_RDWR : O_RDWR | O_NONBLOCK, 0666, create ? &a : NULL);
		if (q == (mqd_t)-1) {
			printf("mq=%s\n", en(errno));
			return 0;
		}
		if (create) {
			printf("mq=%s\n", mq_send(q, "rt12-msg", 8, 0) == 0 ? "ok" : en(errno));
			return 0;
		}
		char buf[128];
		ssize_t n = mq_receive(q, buf, sizeof buf, NULL);
		if (n < 0) {
			printf("mq=%s\n", en(errno));
			return 0;
		}
		printf("mq=ok msg=%.*s\n", (int)n, buf);
		return 0;
	}
	fprintf(stderr, "rt12: unknown op %s\n", op);
	return 2;
}
#endif
