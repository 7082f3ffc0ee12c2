// Video output: raw RGBA frames piped into the `ffmpeg` command, which encodes H.264 (yuv420p) into a
// temporary file; a successful close renames it to the requested path.
//
// The child is started with posix_spawnp (popen's fork + exec without a shell, so paths need no
// quoting). A write to a pipe whose reader died raises SIGPIPE; the library must not kill its host
// process and must not touch the process-wide signal disposition, so SIGPIPE is blocked on the
// writing thread around each write and a pending one is consumed.
#define _POSIX_C_SOURCE 200809L
#include "render_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char** environ;

struct wfVideo {
	pid_t pid;
	int fd;          // write end of the pipe to ffmpeg's stdin
	int width, height;
	char* path;
	char* temp;
	int frames;
	wfResult status; // first failure
	char error[256];
};

static void SetError(char* error, int errorSize, const char* format, const char* a, const char* b)
{
	if (error != NULL && errorSize > 0)
		snprintf(error, (size_t)errorSize, format, a, b);
}

// An executable `name` in a PATH directory.
static bool OnPath(const char* name)
{
	const char* path = getenv("PATH");
	if (path == NULL)
		path = "/usr/bin:/bin";
	char candidate[4096];
	while (*path != '\0') {
		const char* end = strchr(path, ':');
		size_t n = end != NULL ? (size_t)(end - path) : strlen(path);
		if (n > 0 && n + strlen(name) + 2 < sizeof candidate) {
			memcpy(candidate, path, n);
			candidate[n] = '/';
			strcpy(candidate + n + 1, name);
			if (access(candidate, X_OK) == 0)
				return true;
		}
		path += n;
		if (*path == ':')
			path++;
	}
	return false;
}

bool wfVideoAvailable(void) { return OnPath("ffmpeg"); }

wfVideo* wfVideoOpen(const char* path, int width, int height, int fps, char* error, int errorSize)
{
	if (path == NULL || width < 2 || height < 2 || fps < 1 || fps > 1000) {
		SetError(error, errorSize, "%s%s: wfVideoOpen needs a path, a size of at least 2x2 and fps in [1, 1000]",
		         path != NULL ? path : "(null)", "");
		return NULL;
	}
	if (!OnPath("ffmpeg")) {
		SetError(error, errorSize, "%s: cannot write the video: the `ffmpeg` command is not installed (not found on PATH)%s",
		         path, "");
		return NULL;
	}
	wfVideo* v = calloc(1, sizeof *v);
	size_t length = strlen(path) + 32;
	if (v != NULL) {
		v->path = malloc(length);
		v->temp = malloc(length);
	}
	if (v == NULL || v->path == NULL || v->temp == NULL) {
		if (v != NULL) {
			free(v->path);
			free(v->temp);
		}
		free(v);
		SetError(error, errorSize, "%s: out of memory%s", path, "");
		return NULL;
	}
	snprintf(v->path, length, "%s", path);
	snprintf(v->temp, length, "%s.tmp-%ld", path, (long)getpid());
	v->width = width;
	v->height = height;
	v->fd = -1;

	char size[32], rate[16];
	snprintf(size, sizeof size, "%dx%d", width, height);
	snprintf(rate, sizeof rate, "%d", fps);
	// yuv420p needs even sizes: pad an odd edge by one pixel.
	char* argv[] = {
		"ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-y",
		"-f", "rawvideo", "-pix_fmt", "rgba", "-s", size, "-r", rate, "-i", "pipe:0",
		"-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2",
		"-c:v", "libx264", "-preset", "medium", "-crf", "18", "-pix_fmt", "yuv420p",
		"-movflags", "+faststart", "-f", "mp4", v->temp, NULL,
	};
	int fds[2];
	if (pipe(fds) != 0) {
		SetError(error, errorSize, "%s: pipe: %s", path, strerror(errno));
		wfVideoDestroy(v);
		return NULL;
	}
	posix_spawn_file_actions_t actions;
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_adddup2(&actions, fds[0], STDIN_FILENO);
	posix_spawn_file_actions_addclose(&actions, fds[0]);
	posix_spawn_file_actions_addclose(&actions, fds[1]);
	int rc = posix_spawnp(&v->pid, "ffmpeg", &actions, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&actions);
	close(fds[0]);
	if (rc != 0) {
		close(fds[1]);
		v->pid = 0;
		SetError(error, errorSize, "%s: cannot start ffmpeg: %s", path, strerror(rc));
		wfVideoDestroy(v);
		return NULL;
	}
	// The write end must not leak into other children.
	fcntl(fds[1], F_SETFD, FD_CLOEXEC);
	v->fd = fds[1];
	return v;
}

// Writes everything, reporting EPIPE instead of dying of SIGPIPE. Returns 0 or an errno value.
static int WriteAll(int fd, const uint8_t* data, size_t size)
{
	sigset_t block, old, pending;
	sigemptyset(&block);
	sigaddset(&block, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	sigpending(&pending);
	bool wasPending = sigismember(&pending, SIGPIPE);
	int err = 0;
	while (size > 0) {
		ssize_t n = write(fd, data, size);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = errno;
			break;
		}
		data += n;
		size -= (size_t)n;
	}
	if (err == EPIPE && !wasPending) {
		struct timespec zero = {0, 0};
		sigtimedwait(&block, NULL, &zero);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}

wfResult wfVideoWrite(wfVideo* v, const uint8_t* rgba)
{
	if (v == NULL || rgba == NULL)
		return WF_ERROR_INVALID_ARGUMENT;
	if (v->status != WF_OK)
		return v->status;
	int err = WriteAll(v->fd, rgba, (size_t)v->width * (size_t)v->height * 4);
	if (err != 0) {
		v->status = WF_ERROR_IO;
		snprintf(v->error, sizeof v->error, "%s: ffmpeg stopped reading frames (%s)", v->path, strerror(err));
		return v->status;
	}
	v->frames++;
	return WF_OK;
}

// Closes the pipe and waits for ffmpeg; returns its exit status (or -1).
static int Finish(wfVideo* v)
{
	if (v->fd >= 0)
		close(v->fd);
	v->fd = -1;
	int status = -1;
	if (v->pid > 0) {
		while (waitpid(v->pid, &status, 0) < 0 && errno == EINTR) {
		}
		v->pid = 0;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

wfResult wfVideoClose(wfVideo* v, char* error, int errorSize)
{
	if (v == NULL)
		return WF_ERROR_INVALID_ARGUMENT;
	int code = Finish(v);
	if (v->status == WF_OK && v->frames == 0) {
		v->status = WF_ERROR_INVALID_ARGUMENT;
		snprintf(v->error, sizeof v->error, "%s: no frames were written", v->path);
	}
	if (v->status == WF_OK && code != 0) {
		v->status = WF_ERROR_IO;
		snprintf(v->error, sizeof v->error, "%s: ffmpeg failed (exit status %d)", v->path, code);
	}
	if (v->status == WF_OK && rename(v->temp, v->path) != 0) {
		v->status = WF_ERROR_IO;
		snprintf(v->error, sizeof v->error, "%s: rename failed: %s", v->path, strerror(errno));
	}
	if (v->status != WF_OK)
		remove(v->temp);
	wfResult result = v->status;
	if (result != WF_OK && error != NULL && errorSize > 0)
		snprintf(error, (size_t)errorSize, "%s", v->error);
	free(v->path);
	free(v->temp);
	free(v);
	return result;
}

void wfVideoDestroy(wfVideo* v)
{
	if (v == NULL)
		return;
	Finish(v);
	if (v->temp != NULL)
		remove(v->temp);
	free(v->path);
	free(v->temp);
	free(v);
}
