// The .npy format, version 1.0 (numpy's NEP 1): the magic "\x93NUMPY", the version bytes 1 0, a
// little-endian uint16 header length, then an ASCII Python dict literal padded with spaces and
// ended by '\n' so that the data starts at a multiple of 64 bytes, then the raw array.
#include "npy.h"
#include "output.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

// Floats go out little-endian whatever the host's byte order, a block at a time.
static void PutFloats(FILE* f, const float* data, size_t count)
{
	unsigned char block[4096];
	size_t used = 0;
	for (size_t i = 0; i < count; ++i) {
		uint32_t bits;
		memcpy(&bits, &data[i], sizeof bits);
		block[used++] = (unsigned char)(bits & 0xff);
		block[used++] = (unsigned char)((bits >> 8) & 0xff);
		block[used++] = (unsigned char)((bits >> 16) & 0xff);
		block[used++] = (unsigned char)(bits >> 24);
		if (used == sizeof block) {
			fwrite(block, 1, used, f);
			used = 0;
		}
	}
	fwrite(block, 1, used, f);
}

bool CliNpyWriteFloat32(const char* path, const int* shape, int dims, const float* data, char* error, size_t errorSize)
{
	if (dims < 1 || dims > CLI_NPY_MAX_DIMS) {
		snprintf(error, errorSize, "%s: %d dimensions (allowed [1, %d])", path, dims, CLI_NPY_MAX_DIMS);
		return false;
	}
	// The dict: a one-element shape needs its trailing comma, "(5,)".
	char header[256];
	size_t count = 1;
	int n = snprintf(header, sizeof header, "{'descr': '<f4', 'fortran_order': False, 'shape': (");
	for (int i = 0; i < dims; ++i) {
		if (shape[i] < 0) {
			snprintf(error, errorSize, "%s: negative extent %d in dimension %d", path, shape[i], i);
			return false;
		}
		count *= (size_t)shape[i];
		n += snprintf(header + n, sizeof header - (size_t)n, "%d%s", shape[i], dims == 1 || i + 1 < dims ? ", " : "");
	}
	n += snprintf(header + n, sizeof header - (size_t)n, "), }");
	// 10 bytes of preamble, the dict, spaces, '\n': a multiple of 64.
	size_t total = (10 + (size_t)n + 1 + 63) / 64 * 64;
	size_t headerLength = total - 10;
	CliFile file;
	if (!CliFileOpen(&file, path, error, errorSize))
		return false;
	const unsigned char preamble[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(headerLength & 0xff),
		(unsigned char)(headerLength >> 8)};
	fwrite(preamble, 1, sizeof preamble, file.file);
	fwrite(header, 1, (size_t)n, file.file);
	for (size_t i = (size_t)n; i + 1 < headerLength; ++i)
		fputc(' ', file.file);
	fputc('\n', file.file);
	PutFloats(file.file, data, count);
	return CliFileCommit(&file, error, errorSize);
}
