// A program outside the tree that uses an installed weft: one cloth, one frame.
#include <weft/weft.h>

#include <stdio.h>

int main(void)
{
	wfWorldDef wd = wfDefaultWorldDef();
	wd.backend = WF_BACKEND_CPU;
	char err[256];
	wfWorld* world = wfCreateWorld(&wd, err, sizeof err);
	if (world == NULL) {
		fprintf(stderr, "%s\n", err);
		return 1;
	}
	wfClothDef cd = wfDefaultClothDef();
	wfClothId cloth = wfCreateCloth(world, &cd);
	wfWorld_Step(world);
	wfClothStats stats;
	wfCloth_GetStats(cloth, &stats);
	printf("consumer: %g s simulated\n", stats.time);
	wfDestroyWorld(world);
	return stats.time > 0.0 ? 0 : 1;
}
