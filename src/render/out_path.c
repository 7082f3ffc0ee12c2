// Where the PNG and video writers put their bytes. A regular file (or a path that does not exist
// yet) is written under a temporary name in the same folder and renamed into place when complete;
// an existing character device or FIFO (/dev/null, a pipe a reader waits on) is written in place,
// never replaced; anything else (a folder, a block device, a socket) is refused.
#define _POSIX_C_SOURCE 200809L
#include "render_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void Say(char* why, size_t size, const char* fmt, const char* path, const char* detail)
{
	if (why != NULL && size > 0)
		snprintf(why, size, fmt, path, detail);
}

int rdOpenOutputInPlace(const char* path, char* why, size_t whySize)
{
	struct stat st;
	if (stat(path, &st) != 0 || S_ISREG(st.st_mode))
		return RD_OUTPUT_REPLACE;
	if (S_ISDIR(st.st_mode)) {
		Say(why, whySize, "%s: is a folder%s, not a file name", path, "");
		return RD_OUTPUT_REFUSED;
	}
	if (!S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode)) {
		Say(why, whySize, "%s: exists and is a %s (allowed: a regular file, a character device or a FIFO)", path,
			S_ISBLK(st.st_mode)        ? "block device"
				: S_ISSOCK(st.st_mode) ? "socket"
									   : "special file");
		return RD_OUTPUT_REFUSED;
	}
	// Non-blocking first: opening a FIFO nobody reads fails (ENXIO) instead of hanging.
	int fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENXIO)
			Say(why, whySize, "%s: is a FIFO with no reader%s (start the reader first)", path, "");
		else
			Say(why, whySize, "%s: cannot open for writing in place: %s", path, strerror(errno));
		return RD_OUTPUT_REFUSED;
	}
	int flags = fcntl(fd, F_GETFL);
	if (flags >= 0)
		fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
	return fd;
}

bool rdTempName(const char* path, char* out, size_t size)
{
	const char* slash = strrchr(path, '/');
	int folderLength = slash != NULL ? (int)(slash - path + 1) : 0;
	const char* base = slash != NULL ? slash + 1 : path;
	int n = snprintf(out, size, "%.*s.%s.weft-%ld.tmp", folderLength, path, base, (long)getpid());
	return base[0] != 0 && n > 0 && (size_t)n < size;
}
