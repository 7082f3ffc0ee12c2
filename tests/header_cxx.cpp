// The public header must compile as C++ and link from C++.
#include "weft/weft.h"
#ifndef WEFT_NO_RENDER
#include "weft/render.h"
#endif

int main()
{
	wfWorldDef def = wfDefaultWorldDef();
#ifndef WEFT_NO_RENDER
	wfCamera camera = wfCameraLookAt(wfVec3{0.0f, 1.0f, 3.0f}, wfVec3{0.0f, 0.0f, 0.0f}, 60.0f);
	if (!(camera.distance > 0.0f))
		return 1;
#endif
	return def.step.substeps > 0 ? 0 : 1;
}
