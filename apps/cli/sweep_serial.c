// `weft sweep` in one process: the build has no MPI.
#include "sweep_par.h"

#include <stdio.h>
#include <stdlib.h>

bool SweepParAvailable(void) { return false; }

bool SweepParInit(SweepPar* par, int* argc, char*** argv, char* error, size_t errorSize)
{
	(void)argc;
	(void)argv;
	par->rank = 0;
	par->size = 1;
	par->localRank = 0;
	par->impl = NULL;
	// Under mpirun every rank would run the whole sweep into the same folder: refused.
	if (getenv("OMPI_COMM_WORLD_SIZE") != NULL || getenv("PMI_SIZE") != NULL || getenv("PMIX_RANK") != NULL) {
		snprintf(error, errorSize,
			"this weft was built without MPI (libopenmpi-dev not found), so it cannot share a sweep "
			"between the processes of mpirun (run it without mpirun, or rebuild with libopenmpi-dev installed)");
		return false;
	}
	return true;
}

void SweepParFinalize(SweepPar* par) { (void)par; }
void SweepParBroadcast(const SweepPar* par, void* data, size_t bytes)
{
	(void)par;
	(void)data;
	(void)bytes;
}
int SweepParMax(const SweepPar* par, int value)
{
	(void)par;
	return value;
}

bool SweepParQueueOpen(SweepPar* par, char* error, size_t errorSize)
{
	(void)error;
	(void)errorSize;
	par->impl = calloc(1, sizeof(int));
	return par->impl != NULL;
}

int SweepParQueueNext(SweepPar* par) { return (*(int*)par->impl)++; }

void SweepParQueueClose(SweepPar* par)
{
	free(par->impl);
	par->impl = NULL;
}
