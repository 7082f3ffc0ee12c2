// `weft sweep` across processes: MPI when the build has it (sweep_mpi.c) and the command runs
// under mpirun, else one process (sweep_serial.c). The variants' results are files, so the ranks
// exchange only the list of finished variants, a shared batch counter and the exit codes.
#ifndef WEFT_CLI_SWEEP_PAR_H
#define WEFT_CLI_SWEEP_PAR_H

#include <stdbool.h>
#include <stddef.h>

typedef struct SweepPar {
	int rank, size; // this process among all; 0 and 1 without MPI
	int localRank;  // among the processes of this host, for the device choice
	void* impl;     // the MPI window of the batch counter
} SweepPar;

// Whether this build can run across processes (for the help and the messages).
bool SweepParAvailable(void);
// Starts MPI when the process was started by mpirun (its environment says so); otherwise one
// process. Returns false with a message when MPI fails to start.
bool SweepParInit(SweepPar* par, int* argc, char*** argv, char* error, size_t errorSize);
void SweepParFinalize(SweepPar* par);
// Rank 0's bytes to every rank.
void SweepParBroadcast(const SweepPar* par, void* data, size_t bytes);
// The largest of every rank's value (exit codes: 0 < 1 < 2 < 130 keeps the worst).
int SweepParMax(const SweepPar* par, int value);
// The rank-0 work queue: a shared counter, each call takes the next index (0, 1, 2, ... across all
// ranks). SweepParQueueOpen is collective.
bool SweepParQueueOpen(SweepPar* par, char* error, size_t errorSize);
int SweepParQueueNext(SweepPar* par);
void SweepParQueueClose(SweepPar* par);

#endif
