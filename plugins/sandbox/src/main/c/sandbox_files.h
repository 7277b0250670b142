/* SPDX-License-Identifier: Apache-2.0 */
/*
 * How the sandbox plugin opens the files a host names in MEM_MAP, decides
 * whose files it accepts, and copies bytes between a mapped file and its own
 * memory without ever faulting on a file that shrank.
 *
 * Every function reports failure as a negative errno and nothing else: no
 * logging, no global state, so the plugin and the C tests share this file
 * as it is. All functions are safe to call from any thread.
 */
#ifndef SANDBOX_FILES_H_
#define SANDBOX_FILES_H_

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Opens `rest`, a path relative to the directory `root_fd`, for reading and
 * writing (O_CLOEXEC). Resolution never leaves the directory, never goes
 * through a symbolic link at any component (-ELOOP) and never crosses a mount
 * point (-EXDEV), and a ".." component is refused (-EXDEV) even where it
 * would stay beneath. An empty `rest` names the directory itself. Uses openat2
 * and, on a kernel without it (ENOSYS) or under a seccomp profile that refuses it (EPERM),
 * sandbox_open_beneath_by_walk.
 * Returns the new descriptor or -errno (-ENOENT, -ENOTDIR, -EACCES, -EISDIR...).
 */
int sandbox_open_beneath(int root_fd, const char *rest);

/*
 * What sandbox_open_beneath does without openat2: one O_PATH|O_NOFOLLOW open
 * per directory component, each checked with fstat (a symbolic link gives
 * -ELOOP, anything but a directory -ENOTDIR, another device -EXDEV), then an
 * O_RDWR|O_NOFOLLOW open of the last component, on root_fd's device too.
 * A `rest` that ends in '/' names a directory, as for open(2); a ".."
 * component gives -EXDEV.
 */
int sandbox_open_beneath_by_walk(int root_fd, const char *rest);

/* The users whose files MEM_MAP accepts: the worker's own and, when set, UROM_OWNER_UID's. */
struct sandbox_owners {
	uid_t worker_uid;
	int has_principal;
	uid_t principal_uid;
};

/*
 * Fills `owners` from the worker's effective uid and the text of
 * UROM_OWNER_UID (NULL when the variable is absent). -EINVAL when the text is
 * not a decimal uid (digits only, at most 4294967294); `owners` is then left
 * as it was.
 */
int sandbox_owners_parse(struct sandbox_owners *owners, uid_t worker_uid, const char *principal_text);

/* Whether a file owned by `uid` is accepted. */
int sandbox_owner_accepted(const struct sandbox_owners *owners, uid_t uid);

/* The errno these functions answer when the file ends before the range it is asked for. */
#define SANDBOX_FILE_TOO_SHORT ENODATA

/*
 * Reads `len` bytes at `offset` of the file `fd` into `dst` with pread: 0, or
 * -SANDBOX_FILE_TOO_SHORT when the file ends first, or -errno.
 */
int sandbox_read_at(int fd, uint64_t offset, void *dst, size_t len);

/*
 * Writes `len` bytes of `src` at `offset` of the file `fd`, whose first bytes
 * are mapped shared at `mapping`. A file now shorter than offset + len gives
 * -SANDBOX_FILE_TOO_SHORT (nothing is written). pwrite does the work; where
 * the file system has no write (hugetlbfs: EINVAL) the bytes go into the
 * mapping through sandbox_copy_through_kernel, so a page the file lost since
 * the check gives -EFAULT instead of SIGBUS. 0 on success, else -errno.
 */
int sandbox_write_at(int fd, uint8_t *mapping, uint64_t offset, const void *src, size_t len);

/*
 * Copies `len` bytes from `src` to `dst` through a memfd: written into it,
 * then read back into `dst` by the kernel. A `dst` that cannot be written (a
 * mapped page past the end of its file, an unmapped address) gives -EFAULT,
 * never a signal. `src` must be ordinary memory. 0 on success, else -errno.
 */
int sandbox_copy_through_kernel(void *dst, const void *src, size_t len);

#endif
