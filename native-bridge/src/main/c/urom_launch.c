/* SPDX-License-Identifier: Apache-2.0 */
/*
 * urom-launch [OPTIONS] -- PROGRAM [ARGS...]
 *
 * Prepares the process a urom worker runs in, then replaces itself with
 * PROGRAM (an absolute path; the pid stays, the environment is passed on
 * unchanged). The daemon starts it with pipes on fds 0, 1 and 2.
 *
 *   --listen-unix PATH      listen on a new Unix stream socket bound at PATH
 *                           (absolute, must not exist)
 *   --socket-mode OCTAL     mode of that socket file (default 0600, <= 0777)
 *   --socket-owner UID:GID  owner of that socket file (-1 keeps one of them)
 *   --listen-tcp HOST       listen on TCP at HOST (a literal or a name), on a
 *                           port the system picks
 *   --chdir DIR             working directory (absolute)
 *   --user UID --group GID  run as these ids (real, effective and saved);
 *   [--groups G1,G2,...]    with the supplementary groups G1,G2,... (default:
 *                           GID alone). Only root changes ids: anyone else
 *                           must already have UID and GID, and the groups
 *                           when --groups is given, and nothing changes.
 *   --parent-pid PID        die with SIGKILL when the parent goes; fail when
 *                           the parent is no longer PID
 *
 * Exactly one of --listen-unix and --listen-tcp is required. Ids are decimal;
 * each option is given at most once, its value as the next argument.
 *
 * Steps, in order: the listening socket (its file gets its owner and mode
 * before listen(), so nobody can connect while they are not final); the
 * daemon's stdin moves to fd 3, the listening socket becomes fd 0, fds 1 and 2
 * stay, every fd above 3 is closed; chdir; the privilege drop, checked
 * afterwards; PR_SET_NO_NEW_PRIVS; PR_SET_PDEATHSIG (after the drop, which
 * would clear it); execv.
 *
 * fd 1 is the worker's status channel: the launcher writes to it only when it
 * fails, exactly one line, and then exits with status 1:
 *
 *   FAILED <STATUS> urom-launch: <reason>
 *
 * STATUS is INVALID_VALUE (bad arguments), IN_USE (the socket path exists),
 * NOT_PERMITTED (a refused id change, or a call failing with EPERM/EACCES) or
 * OPERATING_SYSTEM (any other failed call; the reason names it and gives
 * strerror). A socket file the launcher bound is removed when it fails.
 *
 * Built with -DUROM_LAUNCH_NO_CLOSE_RANGE it closes fds by listing
 * /proc/self/fd only, the fallback for kernels without close_range.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <netdb.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "write_all.h"

#define LISTEN_BACKLOG 128
#define DEFAULT_SOCKET_MODE 0600
#define MAX_ID 0xFFFFFFFEUL /* (uid_t)-1 means "no change" to the kernel */
#define DAEMON_PIPE_FD 3

struct launch_options {
	const char *unix_path;
	const char *tcp_host;
	const char *socket_mode_text;
	mode_t socket_mode;
	const char *socket_owner_text;
	uid_t socket_uid;
	gid_t socket_gid;
	const char *dir;
	const char *user_text;
	uid_t uid;
	const char *group_text;
	gid_t gid;
	const char *groups_text;
	gid_t *groups;
	size_t group_count;
	const char *parent_pid_text;
	pid_t parent_pid;
	char **program;
};

/* The socket file this process created, removed again when the launch fails. */
static const char *bound_path;

__attribute__((format(printf, 3, 0), noreturn)) static void fail_with(const char *status, int error, const char *fmt,
								      va_list ap)
{
	char line[4096];
	size_t len;

	len = (size_t)snprintf(line, sizeof(line), "FAILED %s urom-launch: ", status);
	vsnprintf(line + len, sizeof(line) - len, fmt, ap);
	len = strlen(line);
	if (error != 0)
		snprintf(line + len, sizeof(line) - len, ": %s", strerror(error));
	len = strlen(line);
	for (size_t i = 0; i < len; i++)
		if (line[i] == '\n' || line[i] == '\r')
			line[i] = ' ';
	if (len == sizeof(line) - 1)
		len--;
	line[len++] = '\n';
	/* Best effort: the launch fails either way, and after the drop the directory may be out of reach. */
	if (bound_path != NULL)
		unlink(bound_path);
	write_all(STDOUT_FILENO, line, len);
	_exit(1);
}

__attribute__((format(printf, 2, 3), noreturn)) static void fail(const char *status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fail_with(status, 0, fmt, ap);
}

/* A failed call: NOT_PERMITTED for EPERM and EACCES, OPERATING_SYSTEM otherwise; strerror is appended. */
__attribute__((format(printf, 2, 3), noreturn)) static void fail_call(int error, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fail_with(error == EPERM || error == EACCES ? "NOT_PERMITTED" : "OPERATING_SYSTEM", error, fmt, ap);
}

/* Decimal digits only, at most MAX_ID. */
static int parse_id(const char *text, size_t len, unsigned long *out)
{
	unsigned long value = 0;

	if (len == 0)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (text[i] < '0' || text[i] > '9')
			return -1;
		value = value * 10 + (unsigned long)(text[i] - '0');
		if (value > MAX_ID)
			return -1;
	}
	*out = value;
	return 0;
}

static uid_t parse_uid(const char *option, const char *text)
{
	unsigned long value;

	if (parse_id(text, strlen(text), &value) != 0)
		fail("INVALID_VALUE", "%s %s: not a decimal id (0 to %lu)", option, text, MAX_ID);
	return (uid_t)value;
}

static mode_t parse_mode(const char *text)
{
	unsigned long value = 0;
	size_t len = strlen(text);

	if (len == 0 || len > 4)
		fail("INVALID_VALUE", "--socket-mode %s: not an octal mode of at most 0777", text);
	for (size_t i = 0; i < len; i++) {
		if (text[i] < '0' || text[i] > '7')
			fail("INVALID_VALUE", "--socket-mode %s: not an octal mode of at most 0777", text);
		value = value * 8 + (unsigned long)(text[i] - '0');
	}
	if (value > 0777)
		fail("INVALID_VALUE", "--socket-mode %s: not an octal mode of at most 0777", text);
	return (mode_t)value;
}

/* One side of UID:GID: a decimal id, or -1 for "keep". */
static int parse_owner_part(const char *text, size_t len, unsigned long *out)
{
	if (len == 2 && text[0] == '-' && text[1] == '1') {
		*out = (unsigned long)-1;
		return 0;
	}
	return parse_id(text, len, out);
}

static void parse_owner(const char *text, struct launch_options *o)
{
	const char *colon = strchr(text, ':');
	unsigned long uid, gid;

	if (colon == NULL || parse_owner_part(text, (size_t)(colon - text), &uid) != 0 ||
	    parse_owner_part(colon + 1, strlen(colon + 1), &gid) != 0)
		fail("INVALID_VALUE", "--socket-owner %s: expected UID:GID, decimal ids or -1 to keep one", text);
	o->socket_uid = (uid_t)uid;
	o->socket_gid = (gid_t)gid;
}

static void parse_groups(const char *text, struct launch_options *o)
{
	size_t count = 1;
	const char *item = text;

	for (const char *c = text; *c != '\0'; c++)
		if (*c == ',')
			count++;
	if (count > NGROUPS_MAX)
		fail("INVALID_VALUE", "--groups: %zu groups, at most %d are allowed", count, NGROUPS_MAX);
	o->groups = calloc(count, sizeof(gid_t));
	if (o->groups == NULL)
		fail_call(errno, "calloc(%zu group ids) failed", count);
	for (size_t i = 0; i < count; i++) {
		const char *end = strchr(item, ',');
		size_t len = end == NULL ? strlen(item) : (size_t)(end - item);
		unsigned long value;

		if (parse_id(item, len, &value) != 0)
			fail("INVALID_VALUE", "--groups %s: item %zu is not a decimal id (0 to %lu)", text, i + 1,
			     MAX_ID);
		o->groups[i] = (gid_t)value;
		item = end == NULL ? item + len : end + 1;
	}
	o->group_count = count;
}

static pid_t parse_pid(const char *text)
{
	unsigned long value = 0;
	size_t len = strlen(text);

	if (len == 0 || len > 10)
		fail("INVALID_VALUE", "--parent-pid %s: not a process id", text);
	for (size_t i = 0; i < len; i++) {
		if (text[i] < '0' || text[i] > '9')
			fail("INVALID_VALUE", "--parent-pid %s: not a process id", text);
		value = value * 10 + (unsigned long)(text[i] - '0');
	}
	if (value == 0 || value > INT_MAX)
		fail("INVALID_VALUE", "--parent-pid %s: not a process id", text);
	return (pid_t)value;
}

/* Stores an option's value once; a second occurrence is an error. */
static void take_value(const char **slot, int argc, char **argv, int *i)
{
	const char *option = argv[*i];

	if (*i + 1 >= argc || strcmp(argv[*i + 1], "--") == 0)
		fail("INVALID_VALUE", "option %s needs a value", option);
	if (*slot != NULL)
		fail("INVALID_VALUE", "option %s is given twice", option);
	*i += 1;
	*slot = argv[*i];
}

static void parse_options(int argc, char **argv, struct launch_options *o)
{
	static const char *const names[] = {"--listen-unix",  "--listen-tcp", "--socket-mode",
					    "--socket-owner", "--chdir",      "--user",
					    "--group",        "--groups",     "--parent-pid"};
	const char **slots[] = {&o->unix_path, &o->tcp_host,   &o->socket_mode_text, &o->socket_owner_text, &o->dir,
				&o->user_text, &o->group_text, &o->groups_text,      &o->parent_pid_text};
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		size_t known = 0;

		while (known < sizeof(names) / sizeof(names[0]) && strcmp(argv[i], names[known]) != 0)
			known++;
		if (known == sizeof(names) / sizeof(names[0]) && argv[i][0] != '-')
			fail("INVALID_VALUE", "unexpected argument %s: the program must follow --", argv[i]);
		if (known == sizeof(names) / sizeof(names[0]))
			fail("INVALID_VALUE", "unknown option %s", argv[i]);
		take_value(slots[known], argc, argv, &i);
	}
	if (i >= argc)
		fail("INVALID_VALUE", "no program: the options must end with -- PROGRAM [ARGS...]");
	if (i + 1 >= argc)
		fail("INVALID_VALUE", "no program after --");
	o->program = argv + i + 1;
	if (o->program[0][0] != '/')
		fail("INVALID_VALUE", "program %s: the path must be absolute", o->program[0]);

	if ((o->unix_path == NULL) == (o->tcp_host == NULL))
		fail("INVALID_VALUE", "give exactly one of --listen-unix and --listen-tcp");
	if (o->unix_path == NULL && (o->socket_mode_text != NULL || o->socket_owner_text != NULL))
		fail("INVALID_VALUE", "--socket-mode and --socket-owner apply to --listen-unix only");
	if (o->tcp_host != NULL && o->tcp_host[0] == '\0')
		fail("INVALID_VALUE", "--listen-tcp needs a host name or address");
	o->socket_mode = o->socket_mode_text == NULL ? DEFAULT_SOCKET_MODE : parse_mode(o->socket_mode_text);
	if (o->socket_owner_text != NULL)
		parse_owner(o->socket_owner_text, o);
	if (o->dir != NULL && o->dir[0] != '/')
		fail("INVALID_VALUE", "--chdir %s: the path must be absolute", o->dir);
	if ((o->user_text == NULL) != (o->group_text == NULL))
		fail("INVALID_VALUE", "--user and --group go together");
	if (o->groups_text != NULL && o->user_text == NULL)
		fail("INVALID_VALUE", "--groups needs --user and --group");
	if (o->user_text != NULL) {
		o->uid = parse_uid("--user", o->user_text);
		o->gid = (gid_t)parse_uid("--group", o->group_text);
		if (o->groups_text != NULL) {
			parse_groups(o->groups_text, o);
		} else {
			o->groups = &o->gid;
			o->group_count = 1;
		}
	}
	if (o->parent_pid_text != NULL)
		o->parent_pid = parse_pid(o->parent_pid_text);
}

static void require_open(int fd, const char *role)
{
	if (fcntl(fd, F_GETFD) < 0)
		fail_call(errno, "fd %d (%s) is not open", fd, role);
}

static int listen_unix(const struct launch_options *o)
{
	struct sockaddr_un address = {.sun_family = AF_UNIX};
	size_t len = strlen(o->unix_path);
	struct stat existing;
	mode_t previous_umask;
	int fd, bound;

	if (o->unix_path[0] != '/')
		fail("INVALID_VALUE", "--listen-unix %s: the path must be absolute", o->unix_path);
	if (len >= sizeof(address.sun_path))
		fail("INVALID_VALUE",
		     "--listen-unix %s: the path is %zu bytes long, at most %zu fit in a socket address", o->unix_path,
		     len, sizeof(address.sun_path) - 1);
	if (lstat(o->unix_path, &existing) == 0)
		fail("IN_USE", "--listen-unix %s: the path exists", o->unix_path);
	if (errno != ENOENT)
		fail_call(errno, "lstat(%s) failed", o->unix_path);
	memcpy(address.sun_path, o->unix_path, len + 1);

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		fail_call(errno, "socket(AF_UNIX) failed");
	/* The file appears with no permission bits; its owner and mode are set before anyone may connect. */
	previous_umask = umask(0777);
	bound = bind(fd, (struct sockaddr *)&address, sizeof(address));
	umask(previous_umask);
	if (bound != 0) {
		if (errno == EADDRINUSE)
			fail("IN_USE", "--listen-unix %s: the path exists", o->unix_path);
		fail_call(errno, "bind(%s) failed", o->unix_path);
	}
	bound_path = o->unix_path;
	if (o->socket_owner_text != NULL &&
	    fchownat(AT_FDCWD, o->unix_path, o->socket_uid, o->socket_gid, AT_SYMLINK_NOFOLLOW) != 0)
		fail_call(errno, "chown(%s, %s) failed", o->unix_path, o->socket_owner_text);
	if (fchmodat(AT_FDCWD, o->unix_path, o->socket_mode, AT_SYMLINK_NOFOLLOW) != 0)
		fail_call(errno, "chmod(%s, %04o) failed", o->unix_path, (unsigned)o->socket_mode);
	if (listen(fd, LISTEN_BACKLOG) != 0)
		fail_call(errno, "listen(%s) failed", o->unix_path);
	return fd;
}

static int listen_tcp(const char *host)
{
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV};
	char where[NI_MAXHOST] = "";
	struct addrinfo *found;
	int resolved, error = 0, one = 1;
	const char *call = "";

	resolved = getaddrinfo(host, "0", &hints, &found);
	if (resolved == EAI_SYSTEM)
		fail_call(errno, "--listen-tcp %s: getaddrinfo failed", host);
	if (resolved == EAI_NONAME || resolved == EAI_NODATA || resolved == EAI_ADDRFAMILY)
		fail("INVALID_VALUE", "--listen-tcp %s: cannot resolve the host: %s", host, gai_strerror(resolved));
	if (resolved != 0)
		fail("OPERATING_SYSTEM", "--listen-tcp %s: getaddrinfo failed: %s", host, gai_strerror(resolved));

	for (struct addrinfo *a = found; a != NULL; a = a->ai_next) {
		int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);

		if (getnameinfo(a->ai_addr, a->ai_addrlen, where, sizeof(where), NULL, 0, NI_NUMERICHOST) != 0)
			snprintf(where, sizeof(where), "%s", host);
		if (fd < 0) {
			call = "socket";
			error = errno;
			continue;
		}
		if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0) {
			call = "setsockopt(SO_REUSEADDR)";
		} else if (bind(fd, a->ai_addr, a->ai_addrlen) != 0) {
			call = "bind";
		} else if (listen(fd, LISTEN_BACKLOG) != 0) {
			call = "listen";
		} else {
			freeaddrinfo(found);
			return fd;
		}
		error = errno;
		close(fd);
	}
	freeaddrinfo(found);
	fail_call(error, "--listen-tcp %s: %s on %s failed", host, call, where);
}

/* Closes every fd above DAEMON_PIPE_FD. */
static void close_other_fds(void)
{
	DIR *listing;
	struct dirent *entry;
	int own;

#if defined(SYS_close_range) && !defined(UROM_LAUNCH_NO_CLOSE_RANGE)
	if (syscall(SYS_close_range, DAEMON_PIPE_FD + 1U, ~0U, 0U) == 0)
		return;
		/* Any failure (ENOSYS on old kernels, EPERM under some seccomp filters) falls back to the listing. */
#endif
	listing = opendir("/proc/self/fd");
	if (listing == NULL)
		fail_call(errno, "opendir(/proc/self/fd) failed");
	own = dirfd(listing);
	errno = 0;
	while ((entry = readdir(listing)) != NULL) {
		char *end;
		long fd = strtol(entry->d_name, &end, 10);

		/* Linux releases the fd even when close() reports an error, so its result changes nothing. */
		if (*end == '\0' && end != entry->d_name && fd > DAEMON_PIPE_FD && fd != own)
			close((int)fd);
		errno = 0;
	}
	if (errno != 0)
		fail_call(errno, "readdir(/proc/self/fd) failed");
	if (closedir(listing) != 0)
		fail_call(errno, "closedir(/proc/self/fd) failed");
}

/* The daemon's stdin to fd 3, the listening socket to fd 0, nothing else above fd 2. */
static void arrange_fds(int listener)
{
	int daemon_pipe = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, DAEMON_PIPE_FD + 1);
	int socket_copy;

	if (daemon_pipe < 0)
		fail_call(errno, "fcntl(0, F_DUPFD_CLOEXEC) failed");
	socket_copy = fcntl(listener, F_DUPFD_CLOEXEC, DAEMON_PIPE_FD + 1);
	if (socket_copy < 0)
		fail_call(errno, "fcntl(listening socket, F_DUPFD_CLOEXEC) failed");
	if (dup2(daemon_pipe, DAEMON_PIPE_FD) < 0)
		fail_call(errno, "dup2(daemon pipe, %d) failed", DAEMON_PIPE_FD);
	if (dup2(socket_copy, STDIN_FILENO) < 0)
		fail_call(errno, "dup2(listening socket, 0) failed");
	close_other_fds();
}

static int same_group_set(const gid_t *a, size_t a_count, const gid_t *b, size_t b_count)
{
	for (size_t i = 0; i < a_count; i++) {
		size_t j = 0;

		while (j < b_count && b[j] != a[i])
			j++;
		if (j == b_count)
			return 0;
	}
	for (size_t j = 0; j < b_count; j++) {
		size_t i = 0;

		while (i < a_count && a[i] != b[j])
			i++;
		if (i == a_count)
			return 0;
	}
	return 1;
}

/* The process's supplementary groups (malloc'd; the caller frees them); *count receives their number. */
static gid_t *current_groups(int *count)
{
	gid_t *current;
	int n = getgroups(0, NULL);

	if (n < 0)
		fail_call(errno, "getgroups failed");
	current = calloc((size_t)n + 1, sizeof(gid_t));
	if (current == NULL)
		fail_call(errno, "calloc(%d group ids) failed", n + 1);
	n = getgroups(n, current);
	if (n < 0)
		fail_call(errno, "getgroups failed");
	*count = n;
	return current;
}

/* Whether the supplementary groups are exactly the given set; *current_count receives their number. */
static int groups_are(const gid_t *wanted, size_t wanted_count, int *current_count)
{
	gid_t *current = current_groups(current_count);
	int same = same_group_set(wanted, wanted_count, current, (size_t)*current_count);

	free(current);
	return same;
}

/* Whether each of the wanted groups is gid or one of the process's supplementary groups. */
static int groups_held(const gid_t *wanted, size_t wanted_count, gid_t gid)
{
	int count, all = 1;
	gid_t *current = current_groups(&count);

	for (size_t i = 0; i < wanted_count && all; i++) {
		int held = wanted[i] == gid;

		for (int j = 0; j < count && !held; j++)
			held = wanted[i] == current[j];
		all = held;
	}
	free(current);
	return all;
}

struct process_ids {
	uid_t uid[3]; /* real, effective, saved */
	gid_t gid[3];
};

static struct process_ids current_ids(void)
{
	struct process_ids ids;

	if (getresuid(&ids.uid[0], &ids.uid[1], &ids.uid[2]) != 0)
		fail_call(errno, "getresuid failed");
	if (getresgid(&ids.gid[0], &ids.gid[1], &ids.gid[2]) != 0)
		fail_call(errno, "getresgid failed");
	return ids;
}

static int ids_are(const struct process_ids *ids, uid_t uid, gid_t gid)
{
	for (int i = 0; i < 3; i++)
		if (ids->uid[i] != uid || ids->gid[i] != gid)
			return 0;
	return 1;
}

#define IDS_FORMAT "uids %u/%u/%u gids %u/%u/%u (real/effective/saved)"
#define IDS_VALUES(ids) \
	(unsigned)(ids).uid[0], (unsigned)(ids).uid[1], (unsigned)(ids).uid[2], (unsigned)(ids).gid[0], \
		(unsigned)(ids).gid[1], (unsigned)(ids).gid[2]

/*
 * Whether this process is in a user namespace that denies setgroups(2) (unshare --map-root-user
 * writes "deny"; the initial namespace always says "allow"). Its root cannot change groups, and
 * has only the ids the namespace maps.
 */
static int setgroups_denied(void)
{
	char text[16] = {0};
	int fd = open("/proc/self/setgroups", O_RDONLY | O_CLOEXEC);
	ssize_t got;

	if (fd < 0)
		return 0;
	got = read(fd, text, sizeof(text) - 1);
	close(fd);
	return got > 0 && strncmp(text, "deny", 4) == 0;
}

/*
 * Only root changes ids; anyone else, and root of a user namespace that denies setgroups, may only
 * ask for the ids it has.
 */
static void drop_privileges(const struct launch_options *o)
{
	struct process_ids ids = current_ids();
	int count;

	if (geteuid() != 0) {
		if (!ids_are(&ids, o->uid, o->gid))
			fail("NOT_PERMITTED",
			     "only root can start workers as another user: asked for uid %u gid %u, the process "
			     "has " IDS_FORMAT,
			     (unsigned)o->uid, (unsigned)o->gid, IDS_VALUES(ids));
		if (o->groups_text != NULL && !groups_are(o->groups, o->group_count, &count))
			fail("NOT_PERMITTED",
			     "only root can start workers as another user: asked for groups %s, the process has %d "
			     "different ones",
			     o->groups_text, count);
		return;
	}
	if (setgroups_denied()) {
		/* groups cannot change here: each one asked for must be held already (the gid counts) */
		if (!ids_are(&ids, o->uid, o->gid))
			fail("NOT_PERMITTED",
			     "root of a user namespace that denies setgroups cannot start workers as another user: "
			     "asked for uid %u gid %u, the process has " IDS_FORMAT,
			     (unsigned)o->uid, (unsigned)o->gid, IDS_VALUES(ids));
		if (!groups_held(o->groups, o->group_count, o->gid))
			fail("NOT_PERMITTED",
			     "root of a user namespace that denies setgroups cannot change groups: asked for groups "
			     "%s, not all held",
			     o->groups_text != NULL ? o->groups_text : o->group_text);
		return;
	}
	if (setgroups(o->group_count, o->groups) != 0)
		fail_call(errno, "setgroups(%s) failed", o->groups_text != NULL ? o->groups_text : o->group_text);
	if (setresgid(o->gid, o->gid, o->gid) != 0)
		fail_call(errno, "setresgid(%u) failed", (unsigned)o->gid);
	if (setresuid(o->uid, o->uid, o->uid) != 0)
		fail_call(errno, "setresuid(%u) failed", (unsigned)o->uid);

	ids = current_ids();
	if (!ids_are(&ids, o->uid, o->gid))
		fail("OPERATING_SYSTEM",
		     "the privilege drop did not take: asked for uid %u gid %u, the process has " IDS_FORMAT,
		     (unsigned)o->uid, (unsigned)o->gid, IDS_VALUES(ids));
	if (!groups_are(o->groups, o->group_count, &count))
		fail("OPERATING_SYSTEM",
		     "the privilege drop did not take: the process has %d groups, not the %zu asked for", count,
		     o->group_count);
	if (o->uid == 0)
		return;
	if (setuid(0) == 0)
		fail("OPERATING_SYSTEM", "the privilege drop did not take: setuid(0) succeeded as uid %u",
		     (unsigned)o->uid);
	if (errno != EPERM)
		fail_call(errno, "setuid(0) after the drop failed, but not with EPERM");
	if (o->gid == 0)
		return;
	if (setgid(0) == 0)
		fail("OPERATING_SYSTEM", "the privilege drop did not take: setgid(0) succeeded as uid %u",
		     (unsigned)o->uid);
	if (errno != EPERM)
		fail_call(errno, "setgid(0) after the drop failed, but not with EPERM");
}

int main(int argc, char **argv)
{
	struct launch_options o = {0};
	int listener;

	require_open(STDOUT_FILENO, "the status channel");
	require_open(STDIN_FILENO, "the daemon's pipe");
	require_open(STDERR_FILENO, "stderr");
	parse_options(argc, argv, &o);

	listener = o.unix_path != NULL ? listen_unix(&o) : listen_tcp(o.tcp_host);
	arrange_fds(listener);

	if (o.dir != NULL && chdir(o.dir) != 0)
		fail_call(errno, "chdir(%s) failed", o.dir);
	if (o.user_text != NULL)
		drop_privileges(&o);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1UL, 0UL, 0UL, 0UL) != 0)
		fail_call(errno, "prctl(PR_SET_NO_NEW_PRIVS) failed");
	if (o.parent_pid_text != NULL) {
		pid_t parent;

		if (prctl(PR_SET_PDEATHSIG, (unsigned long)SIGKILL, 0UL, 0UL, 0UL) != 0)
			fail_call(errno, "prctl(PR_SET_PDEATHSIG) failed");
		parent = getppid();
		if (parent != o.parent_pid)
			fail("OPERATING_SYSTEM", "the parent process %d is gone (the parent is now %d)",
			     (int)o.parent_pid, (int)parent);
	}

	execv(o.program[0], o.program);
	fail_call(errno, "execv(%s) failed", o.program[0]);
}
