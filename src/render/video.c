// Video output: raw RGBA frames piped into the `ffmpeg` command, which encodes H.264 (yuv420p) into a
// temporary file (".NAME.weft-PID.tmp" beside the path); a successful close renames it to the requested
// path. An existing character device or FIFO is never replaced: it is opened here and handed to
// ffmpeg as its fd 3 ("pipe:3"), written as fragmented MP4, which needs no seeking.
//
// Paths never reach ffmpeg's command line as they are: the temporary goes as "file:PATH", so a name
// like "-1" or "a:b.mp4" is a file, not an option or a protocol. ffmpeg runs in its own process
// group, so a Ctrl-C at the terminal reaches only the caller, which can still finish the video.
//
// ffmpeg exits 0 even when it could not finish the file ("Error writing trailer ...: No space left
// on device"), so its exit status alone does not say the video is whole: its stderr (at -loglevel
// error it says nothing unless something failed) comes back through a pipe, drained while frames
// are written, and any line there, or an empty file, fails the close. The temporary is then removed
// and an earlier file of the requested name is left as it was.
//
// The child is started with posix_spawnp (popen's fork + exec without a shell, so paths need no
// quoting). A write to a pipe whose reader died raises SIGPIPE; the library must not kill its host
// process and must not touch the process-wide signal disposition, so SIGPIPE is blocked on the
// writing thread around each write and a pending one is consumed.
#define _POSIX_C_SOURCE 200809L
#include "render_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
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
	int fd;        // write end of the pipe to ffmpeg's stdin (non-blocking)
	int errFd;     // read end of the pipe from ffmpeg's stderr (non-blocking), -1 when closed
	char log[512]; // the last of what ffmpeg wrote to stderr
	size_t logLength;
	int width, height;
	char* path;
	char* temp; // NULL when written in place
	int frames;
	wfResult status; // first failure
	char error[1024];
};

static void SetError(char* error, int errorSize, const char* format, const char* a, const char* b)
{
	if (error != NULL && errorSize > 0)
		snprintf(error, (size_t)errorSize, format, a, b);
}

// Whether `ffmpeg -version` runs and exits 0: posix_spawnp searches PATH itself, so the library
// reads no environment of its own.
bool wfVideoAvailable(void)
{
	posix_spawn_file_actions_t actions;
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	char* argv[] = {"ffmpeg", "-version", NULL};
	pid_t pid = 0;
	int rc = posix_spawnp(&pid, "ffmpeg", &actions, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&actions);
	if (rc != 0)
		return false;
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
	}
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

wfVideo* wfVideoOpen(const char* path, int width, int height, int fps, char* error, int errorSize)
{
	if (path == NULL || width < 2 || height < 2 || fps < 1 || fps > 1000) {
		SetError(error, errorSize, "%s%s: wfVideoOpen needs a path, a size of at least 2x2 and fps in [1, 1000]",
			path != NULL ? path : "(null)", "");
		return NULL;
	}
	char why[512];
	int inPlace = rdOpenOutputInPlace(path, why, sizeof why);
	if (inPlace == RD_OUTPUT_REFUSED) {
		SetError(error, errorSize, "%s%s", why, "");
		return NULL;
	}
	wfVideo* v = calloc(1, sizeof *v);
	size_t length = strlen(path) + 32;
	if (v != NULL) {
		v->path = malloc(length);
		v->temp = inPlace < 0 ? malloc(length) : NULL;
	}
	if (v == NULL || v->path == NULL || (inPlace < 0 && v->temp == NULL)) {
		if (v != NULL) {
			free(v->path);
			free(v->temp);
		}
		free(v);
		if (inPlace >= 0)
			close(inPlace);
		SetError(error, errorSize, "%s: out of memory%s", path, "");
		return NULL;
	}
	snprintf(v->path, length, "%s", path);
	v->width = width;
	v->height = height;
	v->fd = -1;
	v->errFd = -1;
	char target[4096 + 8];
	if (inPlace >= 0) {
		snprintf(target, sizeof target, "pipe:3");
	} else if (!rdTempName(path, v->temp, length) || snprintf(target, sizeof target, "file:%s", v->temp) >= (int)sizeof target) {
		SetError(error, errorSize, "%s: not a file name, or too long%s", path, "");
		free(v->temp);
		v->temp = NULL;
		wfDestroyVideo(v);
		return NULL;
	}

	char size[32], rate[16];
	snprintf(size, sizeof size, "%dx%d", width, height);
	snprintf(rate, sizeof rate, "%d", fps);
	// yuv420p needs even sizes: pad an odd edge by one pixel.
	char* argv[] = {
		"ffmpeg",
		"-hide_banner",
		"-loglevel",
		"error",
		"-nostdin",
		"-y",
		"-f",
		"rawvideo",
		"-pix_fmt",
		"rgba",
		"-s",
		size,
		"-r",
		rate,
		"-i",
		"pipe:0",
		"-vf",
		"pad=ceil(iw/2)*2:ceil(ih/2)*2",
		"-c:v",
		"libx264",
		"-preset",
		"medium",
		"-crf",
		"18",
		"-pix_fmt",
		"yuv420p",
		"-movflags",
		inPlace >= 0 ? "+frag_keyframe+empty_moov" : "+faststart",
		"-f",
		"mp4",
		target,
		NULL,
	};
	int fds[2], errFds[2];
	bool piped = pipe(fds) == 0;
	if (piped && pipe(errFds) != 0) {
		int saved = errno;
		close(fds[0]);
		close(fds[1]);
		errno = saved;
		piped = false;
	}
	if (!piped) {
		SetError(error, errorSize, "%s: pipe: %s", path, strerror(errno));
		if (inPlace >= 0)
			close(inPlace);
		wfDestroyVideo(v);
		return NULL;
	}
	posix_spawn_file_actions_t actions;
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_adddup2(&actions, fds[0], STDIN_FILENO);
	posix_spawn_file_actions_addclose(&actions, fds[0]);
	posix_spawn_file_actions_addclose(&actions, fds[1]);
	posix_spawn_file_actions_adddup2(&actions, errFds[1], STDERR_FILENO);
	posix_spawn_file_actions_addclose(&actions, errFds[0]);
	posix_spawn_file_actions_addclose(&actions, errFds[1]);
	if (inPlace >= 0)
		posix_spawn_file_actions_adddup2(&actions, inPlace, 3);
	posix_spawnattr_t attributes;
	posix_spawnattr_init(&attributes);
	posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
	posix_spawnattr_setpgroup(&attributes, 0);
	int rc = posix_spawnp(&v->pid, "ffmpeg", &actions, &attributes, argv, environ);
	posix_spawnattr_destroy(&attributes);
	posix_spawn_file_actions_destroy(&actions);
	close(fds[0]);
	close(errFds[1]);
	if (inPlace >= 0)
		close(inPlace);
	if (rc != 0) {
		close(fds[1]);
		close(errFds[0]);
		v->pid = 0;
		if (rc == ENOENT)
			SetError(error, errorSize, "%s: cannot write the video: the `ffmpeg` command is not installed (not found on PATH)%s", path, "");
		else
			SetError(error, errorSize, "%s: cannot start ffmpeg: %s", path, strerror(rc));
		wfDestroyVideo(v);
		return NULL;
	}
	// The write end must not leak into other children.
	fcntl(fds[1], F_SETFD, FD_CLOEXEC);
	fcntl(errFds[0], F_SETFD, FD_CLOEXEC);
	fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK);
	fcntl(errFds[0], F_SETFL, fcntl(errFds[0], F_GETFL) | O_NONBLOCK);
	v->fd = fds[1];
	v->errFd = errFds[0];
	return v;
}

// Reads what ffmpeg wrote to stderr so far, keeping the last sizeof log - 1 bytes; at its end of file
// the pipe is closed.
static void DrainLog(wfVideo* v)
{
	char chunk[512];
	while (v->errFd >= 0) {
		ssize_t n = read(v->errFd, chunk, sizeof chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0 || errno != EAGAIN) {
				close(v->errFd);
				v->errFd = -1;
			}
			return;
		}
		const size_t room = sizeof v->log - 1;
		size_t take = (size_t)n > room ? room : (size_t)n;
		const char* from = chunk + ((size_t)n - take);
		if (v->logLength + take > room) {
			size_t drop = v->logLength + take - room;
			memmove(v->log, v->log + drop, v->logLength - drop);
			v->logLength -= drop;
		}
		memcpy(v->log + v->logLength, from, take);
		v->logLength += take;
		v->log[v->logLength] = 0;
	}
}

// Writes everything, reporting EPIPE instead of dying of SIGPIPE, and drains ffmpeg's stderr while
// it waits (a full stderr pipe would stop ffmpeg reading its input). Returns 0 or an errno value.
static int WriteAll(wfVideo* v, const uint8_t* data, size_t size)
{
	const int fd = v->fd;
	sigset_t block, old, pending;
	sigemptyset(&block);
	sigaddset(&block, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	sigpending(&pending);
	bool wasPending = sigismember(&pending, SIGPIPE);
	int err = 0;
	while (size > 0) {
		struct pollfd fds[2] = {{fd, POLLOUT, 0}, {v->errFd, POLLIN, 0}};
		if (poll(fds, v->errFd >= 0 ? 2 : 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			err = errno;
			break;
		}
		if (v->errFd >= 0 && fds[1].revents != 0)
			DrainLog(v);
		if (fds[0].revents == 0)
			continue;
		ssize_t n = write(fd, data, size);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
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
	int err = WriteAll(v, rgba, (size_t)v->width * (size_t)v->height * 4);
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
	// The rest of ffmpeg's stderr, to its end (ffmpeg closes it when it exits).
	while (v->errFd >= 0) {
		struct pollfd p = {v->errFd, POLLIN, 0};
		if (poll(&p, 1, -1) < 0 && errno != EINTR)
			break;
		DrainLog(v);
	}
	if (v->errFd >= 0)
		close(v->errFd);
	v->errFd = -1;
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
	// ffmpeg said something at -loglevel error: it could not write the whole file, whatever its
	// exit status. Its last line goes into the message.
	if (v->status == WF_OK && v->logLength > 0) {
		size_t end = v->logLength;
		while (end > 0 && (v->log[end - 1] == '\n' || v->log[end - 1] == '\r'))
			--end;
		size_t start = end;
		while (start > 0 && v->log[start - 1] != '\n')
			--start;
		v->status = WF_ERROR_IO;
		snprintf(v->error, sizeof v->error, "%s: ffmpeg could not write the video: %.*s", v->path, (int)(end - start), v->log + start);
	}
	struct stat st;
	if (v->status == WF_OK && v->temp != NULL && (stat(v->temp, &st) != 0 || st.st_size == 0)) {
		v->status = WF_ERROR_IO;
		snprintf(v->error, sizeof v->error, "%s: ffmpeg wrote an empty file", v->path);
	}
	if (v->status == WF_OK && v->temp != NULL && rename(v->temp, v->path) != 0) {
		v->status = WF_ERROR_IO;
		snprintf(v->error, sizeof v->error, "%s: rename failed: %s", v->path, strerror(errno));
	}
	if (v->status != WF_OK && v->temp != NULL) {
		remove(v->temp);
		if (access(v->path, F_OK) == 0) {
			size_t used = strlen(v->error);
			snprintf(v->error + used, sizeof v->error - used, " (the existing %s was left as it was)", v->path);
		}
	}
	wfResult result = v->status;
	if (result != WF_OK && error != NULL && errorSize > 0)
		snprintf(error, (size_t)errorSize, "%s", v->error);
	free(v->path);
	free(v->temp);
	free(v);
	return result;
}

void wfDestroyVideo(wfVideo* v)
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
