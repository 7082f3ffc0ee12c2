// The threaded SoA frame's schedule (cpu_soa.c): how the rows are cut into one band per thread, in
// proportion to each thread's measured speed, and how that speed is kept from frame to frame.
// Which thread solves which rows changes no bit, so these only move time.
#include "cpu.h"

#include <math.h>

// Thread t's band is rows [bandRow[t], bandRow[t + 1]), in proportion to rate[t] (a rate that is not
// a positive number counts as the mean of the others, or 1), and at least two rows.
void wfCpuSoaCutBands(int rows, int team, const double* rate, int* bandRow)
{
	double total = 0.0, fallback = 1.0;
	int counted = 0;
	for (int t = 0; t < team; ++t) {
		if (rate[t] > 0.0 && isfinite(rate[t])) {
			total += rate[t];
			counted++;
		}
	}
	if (counted > 0)
		fallback = total / counted;
	total += fallback * (team - counted);
	double sum = 0.0;
	bandRow[0] = 0;
	for (int t = 1; t < team; ++t) {
		sum += rate[t - 1] > 0.0 && isfinite(rate[t - 1]) ? rate[t - 1] : fallback;
		const int want = (int)(rows * sum / total + 0.5), lo = bandRow[t - 1] + 2, hi = rows - 2 * (team - t);
		bandRow[t] = want < lo ? lo : want > hi ? hi : want;
	}
	bandRow[team] = rows;
}

// How much of a thread's measured speed a frame keeps of the frames before, and by what factor one
// frame may move it at most (wfCpuSoaUpdateRates).
// (Keeping 0.75, 0.9 or 0.95, steps of 4, 1.5 or 1.25: the same within the H200 host's noise.)
#define WF_SOA_RATE_KEEP 0.75
#define WF_SOA_RATE_STEP 4.0

void wfCpuSoaUpdateRates(int team, const int* bandRow, const double* busy, double* rate)
{
	// Rates relative to the mean, so that the smoothing keeps their scale from frame to frame.
	double mean = 0.0;
	for (int t = 0; t < team; ++t) {
		const int rows = bandRow[t + 1] - bandRow[t];
		mean += busy[t] > 0.0 ? rows / busy[t] / team : 0.0;
	}
	for (int t = 0; t < team; ++t) {
		const int rows = bandRow[t + 1] - bandRow[t];
		double measured = busy[t] > 0.0 && mean > 0.0 ? rows / busy[t] / mean : 0.0;
		if (!(measured > 0.0 && isfinite(measured)))
			continue;
		// A frame's clock is noisy (a thread descheduled for a while): one frame moves a rate by at
		// most a factor of WF_SOA_RATE_STEP.
		measured = measured > rate[t] * WF_SOA_RATE_STEP ? rate[t] * WF_SOA_RATE_STEP : measured;
		measured = measured < rate[t] / WF_SOA_RATE_STEP ? rate[t] / WF_SOA_RATE_STEP : measured;
		rate[t] = WF_SOA_RATE_KEEP * rate[t] + (1.0 - WF_SOA_RATE_KEEP) * measured;
	}
}
