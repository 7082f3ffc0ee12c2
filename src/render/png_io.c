// PNG output through libpng: written to ".NAME.weft-PID.tmp" beside the path and renamed into place when
// complete, so a reader never sees half a file; an existing device or FIFO is written in place.
#define _POSIX_C_SOURCE 200809L
#include "render_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static wfResult PngFail(char* error, int errorSize, wfResult code, const char* what, const char* path)
{
	if (error != NULL && errorSize > 0)
		snprintf(error, (size_t)errorSize, "%s: %s", path, what);
	return code;
}

// libpng reports errors through longjmp; this keeps the volatile state of one write together.
static bool WriteRows(FILE* file, const uint8_t* rgba, int width, int height, char* message, size_t messageSize)
{
	png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	png_infop info = png != NULL ? png_create_info_struct(png) : NULL;
	if (png == NULL || info == NULL) {
		png_destroy_write_struct(&png, &info);
		snprintf(message, messageSize, "libpng could not start");
		return false;
	}
	if (setjmp(png_jmpbuf(png))) {
		png_destroy_write_struct(&png, &info);
		snprintf(message, messageSize, "libpng failed while writing");
		return false;
	}
	png_init_io(png, file);
	png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8, PNG_COLOR_TYPE_RGBA, PNG_INTERLACE_NONE,
		PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
	png_set_sRGB(png, info, PNG_sRGB_INTENT_PERCEPTUAL);
	png_set_compression_level(png, 3); // frames of a video: fast beats small
	png_write_info(png, info);
	for (int y = 0; y < height; ++y)
		png_write_row(png, (png_const_bytep)(rgba + (size_t)y * (size_t)width * 4));
	png_write_end(png, info);
	png_destroy_write_struct(&png, &info);
	return true;
}

wfResult wfWritePng(const char* path, const uint8_t* rgba, int width, int height, char* error, int errorSize)
{
	if (path == NULL || rgba == NULL || width < 1 || height < 1)
		return PngFail(error, errorSize, WF_ERROR_INVALID_ARGUMENT, "wfWritePng: NULL path or pixels, or an empty image",
			path != NULL ? path : "(null)");
	char why[512];
	int inPlace = rdOpenOutputInPlace(path, why, sizeof why);
	if (inPlace == RD_OUTPUT_REFUSED) {
		if (error != NULL && errorSize > 0)
			snprintf(error, (size_t)errorSize, "%s", why);
		return WF_ERROR_IO;
	}
	size_t length = strlen(path) + 32;
	char* temp = inPlace < 0 ? malloc(length) : NULL;
	if (inPlace < 0 && (temp == NULL || !rdTempName(path, temp, length))) {
		free(temp);
		return PngFail(error, errorSize, WF_ERROR_INVALID_ARGUMENT, "not a file name (or out of memory)", path);
	}
	// A device or FIFO is written in place; otherwise the temporary is created exclusively.
	int fd = inPlace >= 0 ? inPlace : open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
	FILE* file = fd >= 0 ? fdopen(fd, "wb") : NULL;
	if (file == NULL) {
		char what[256];
		snprintf(what, sizeof what, "cannot create %s: %s", temp != NULL ? temp : path, strerror(errno));
		if (fd >= 0)
			close(fd);
		if (temp != NULL && fd >= 0)
			remove(temp);
		free(temp);
		return PngFail(error, errorSize, WF_ERROR_IO, what, path);
	}
	char message[128] = "";
	bool ok = WriteRows(file, rgba, width, height, message, sizeof message);
	if (fclose(file) != 0 && ok) {
		ok = false;
		snprintf(message, sizeof message, "write failed: %s", strerror(errno));
	}
	if (ok && temp != NULL && rename(temp, path) != 0) {
		ok = false;
		snprintf(message, sizeof message, "rename failed: %s", strerror(errno));
	}
	if (!ok && temp != NULL)
		remove(temp);
	free(temp);
	return ok ? WF_OK : PngFail(error, errorSize, WF_ERROR_IO, message, path);
}

wfResult wfEncodePng(const uint8_t* rgba, int width, int height, uint8_t** png, size_t* size)
{
	if (png != NULL)
		*png = NULL;
	if (size != NULL)
		*size = 0;
	if (rgba == NULL || png == NULL || size == NULL || width < 1 || height < 1)
		return WF_ERROR_INVALID_ARGUMENT;
	char* bytes = NULL;
	size_t length = 0;
	FILE* file = open_memstream(&bytes, &length);
	if (file == NULL)
		return WF_ERROR_OUT_OF_MEMORY;
	char message[128];
	const bool written = WriteRows(file, rgba, width, height, message, sizeof message);
	if (fclose(file) != 0 || !written) {
		free(bytes);
		return WF_ERROR_OUT_OF_MEMORY;
	}
	*png = (uint8_t*)bytes;
	*size = length;
	return WF_OK;
}
