// NumPy .npy files (format version 1.0): a small writer of little-endian float32 arrays, so that a
// sweep's arrays are read by numpy.load (and any .npy reader) without weft. Written atomically
// through CliFile (temporary name + rename).
#ifndef WEFT_CLI_NPY_H
#define WEFT_CLI_NPY_H

#include <stdbool.h>
#include <stddef.h>

#define CLI_NPY_MAX_DIMS 4

// Writes data, shape (shape[0] x ... x shape[dims-1]), C order, dtype '<f4'. On failure returns
// false and writes "PATH: problem" into error.
bool CliNpyWriteFloat32(const char* path, const int* shape, int dims, const float* data, char* error, size_t errorSize);

#endif
