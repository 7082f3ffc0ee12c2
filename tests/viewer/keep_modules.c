// Sanitizer builds only: preloaded into weft-view so that dlclose() leaves libraries loaded.
// The Vulkan driver, its window-system code and the X11 extension libraries GLFW opens keep memory
// that their own globals reference; once they are unloaded LeakSanitizer reports it as leaked from
// "<unknown module>". With them kept loaded, what it reports is the viewer's own (and ImGui's).
#include <stddef.h>

int dlclose(void* handle);

int dlclose(void* handle)
{
	(void)handle;
	return 0;
}
