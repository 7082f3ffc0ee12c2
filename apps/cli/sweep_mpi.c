// `weft sweep` across the processes of mpirun (OpenMPI). MPI starts only when the environment shows
// an mpirun launch, so a plain `weft sweep` never touches MPI. The work queue is a counter in a
// window on rank 0, taken with MPI_Fetch_and_op under a passive-target lock: no rank has to stop
// to serve the others, rank 0 included.
#include "sweep_par.h"

#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>

typedef struct Queue {
	MPI_Win window;
	int* counter; // rank 0's, in the window
} Queue;

static bool s_started; // this process called MPI_Init (MPI itself is process-wide)

bool SweepParAvailable(void) { return true; }

static bool UnderMpirun(void)
{
	return getenv("OMPI_COMM_WORLD_SIZE") != NULL || getenv("PMI_SIZE") != NULL || getenv("PMIX_RANK") != NULL;
}

bool SweepParInit(SweepPar* par, int* argc, char*** argv, char* error, size_t errorSize)
{
	par->rank = 0;
	par->size = 1;
	par->localRank = 0;
	par->impl = NULL;
	if (!UnderMpirun())
		return true;
	if (MPI_Init(argc, argv) != MPI_SUCCESS) {
		snprintf(error, errorSize, "MPI_Init failed");
		return false;
	}
	s_started = true;
	MPI_Comm_rank(MPI_COMM_WORLD, &par->rank);
	MPI_Comm_size(MPI_COMM_WORLD, &par->size);
	MPI_Comm local;
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, par->rank, MPI_INFO_NULL, &local);
	MPI_Comm_rank(local, &par->localRank);
	MPI_Comm_free(&local);
	return true;
}

void SweepParFinalize(SweepPar* par)
{
	(void)par;
	if (s_started)
		MPI_Finalize();
	s_started = false;
}

void SweepParBroadcast(const SweepPar* par, void* data, size_t bytes)
{
	if (par->size > 1)
		MPI_Bcast(data, (int)bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
}

int SweepParMax(const SweepPar* par, int value)
{
	int out = value;
	if (par->size > 1)
		MPI_Allreduce(&value, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	return out;
}

bool SweepParQueueOpen(SweepPar* par, char* error, size_t errorSize)
{
	Queue* q = (Queue*)calloc(1, sizeof(Queue));
	if (q == NULL) {
		snprintf(error, errorSize, "out of memory");
		return false;
	}
	if (par->size == 1) {
		q->counter = (int*)calloc(1, sizeof(int));
		par->impl = q;
		return q->counter != NULL;
	}
	MPI_Aint bytes = par->rank == 0 ? (MPI_Aint)sizeof(int) : 0;
	if (MPI_Win_allocate(bytes, (int)sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &q->counter, &q->window) != MPI_SUCCESS) {
		snprintf(error, errorSize, "MPI_Win_allocate failed");
		free(q);
		return false;
	}
	if (par->rank == 0) {
		MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, q->window);
		*q->counter = 0;
		MPI_Win_unlock(0, q->window);
	}
	MPI_Barrier(MPI_COMM_WORLD); // nobody takes a number before the counter is zero
	par->impl = q;
	return true;
}

int SweepParQueueNext(SweepPar* par)
{
	Queue* q = (Queue*)par->impl;
	if (par->size == 1)
		return (*q->counter)++;
	const int one = 1;
	int taken = 0;
	MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, q->window);
	MPI_Fetch_and_op(&one, &taken, MPI_INT, 0, 0, MPI_SUM, q->window);
	MPI_Win_unlock(0, q->window);
	return taken;
}

void SweepParQueueClose(SweepPar* par)
{
	Queue* q = (Queue*)par->impl;
	if (q == NULL)
		return;
	if (par->size == 1)
		free(q->counter);
	else
		MPI_Win_free(&q->window); // collective: every rank has left its loop
	free(q);
	par->impl = NULL;
}
