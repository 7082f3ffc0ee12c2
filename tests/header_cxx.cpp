// The public header must compile as C++ and link from C++.
#include "weft/weft.h"

int main()
{
	wfWorldDef def = wfDefaultWorldDef();
	return def.step.substeps > 0 ? 0 : 1;
}
